/**
 * The operators' HTTP port (TALLY_HTTP_PORT), apart from any chat traffic:
 *
 * - `GET /healthz`: 200 while the process runs (liveness: restart me only if this fails).
 * - `GET /readyz`: 200 when every readiness check passes, else 503; the JSON body says which
 *   check failed and why (see `readiness.ts`; reasons carry no secrets).
 * - `GET /metrics`: the Prometheus text format (see `prometheus-metrics.ts`).
 *
 * Anything else is 404 (405 for another method on a known path). Plain `node:http`: three routes
 * do not need a framework.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../base/logger.js';
import type { MetricsExposition } from './prometheus-metrics.js';
import { type ReadinessResult, safeReason } from './readiness.js';

export interface OpsServerOptions {
  /** TCP port (TALLY_HTTP_PORT); 0 picks a free one (see `OpsServer.port`). */
  port: number;
  /**
   * Interface to listen on. Default `0.0.0.0`: Prometheus and probes usually scrape from another
   * host or the container network, not from loopback.
   */
  host?: string;
  /** Renders `/metrics`; usually a `PrometheusMetrics`. */
  metrics: { render(): Promise<MetricsExposition> };
  /** Run at every `/readyz`, usually `() => checkReadiness(checks)`. */
  readiness: () => Promise<ReadinessResult>;
  logger: Logger;
}

export interface OpsServer {
  /** Where to reach the server, e.g. `http://127.0.0.1:9464` (loopback when listening on all interfaces). */
  url: string;
  /** The port actually listened on (useful with `port: 0`). */
  port: number;
  /** Stops listening and ends every open connection, keep-alive ones included. */
  close(): Promise<void>;
}

/** Starts listening; rejects, naming TALLY_HTTP_PORT, when the port cannot be taken. */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const host = options.host ?? '0.0.0.0';
  const logger = options.logger.child({ component: 'ops-server' });
  let wasReady: boolean | undefined;

  const readyz = async (response: ServerResponse) => {
    let result: ReadinessResult;
    try {
      result = await options.readiness();
    } catch (error) {
      result = { ready: false, checks: { readiness: { ok: false, error: safeReason(error), ms: 0 } } };
    }
    // Log transitions only: a probe every few seconds must not flood the log.
    if (result.ready !== wasReady) {
      const failing = Object.fromEntries(Object.entries(result.checks).filter(([, outcome]) => !outcome.ok));
      if (result.ready) logger.info('ready');
      else logger.warn({ failing }, 'not ready');
      wasReady = result.ready;
    }
    sendJson(response, result.ready ? 200 : 503, result);
  };

  const metrics = async (response: ServerResponse) => {
    const exposition = await options.metrics.render();
    send(response, 200, exposition.contentType, exposition.body);
  };

  const routes: Record<string, (response: ServerResponse) => void | Promise<void>> = {
    '/healthz': (response) => sendJson(response, 200, { status: 'ok' }),
    '/readyz': readyz,
    '/metrics': metrics,
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://ops.invalid').pathname;
    const route = routes[path];
    if (route === undefined) return sendJson(response, 404, { error: 'not found' });
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      return sendJson(response, 405, { error: 'method not allowed' });
    }
    await route(response);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: error, path: request.url }, 'ops request failed');
      if (!response.headersSent) sendJson(response, 500, { error: safeReason(error) });
      else response.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        new Error(
          `The ops server cannot listen on ${host}:${options.port} (${error.code ?? error.message}). Free the port or set TALLY_HTTP_PORT to another one.`,
          { cause: error },
        ),
      );
    };
    server.once('error', onError);
    server.listen(options.port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (error) => logger.error({ err: error }, 'ops server error'));

  const port = (server.address() as AddressInfo).port;
  const url = `http://${reachableHost(host)}:${port}`;
  logger.info({ url }, 'ops server listening');

  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Scrapers keep connections alive; without this, close() would wait for them to time out.
        server.closeAllConnections();
      }),
  };
}

/** A host a client on this machine can dial: the wildcard addresses are not. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    // Probes and scrapes must see the live state, never a cached one.
    'Cache-Control': 'no-store',
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}
