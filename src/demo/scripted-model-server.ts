/**
 * The LLM stand-in: an OpenAI-compatible HTTP server that answers from a script instead of a model.
 *
 * It speaks the real wire protocol (`POST /v1/chat/completions`, JSON or server-sent events,
 * `POST /v1/embeddings` and `GET /v1/models`), so the unmodified `openai` SDK talks to it. Each chat
 * request takes the next step of the script; a step is a reply (text and/or tool calls), a fault (an
 * HTTP error, a slow answer), or a function of the conversation that returns one. Embedding requests
 * take no step: each input is embedded by the `embed` option, by default a hashed bag of words, so
 * texts sharing words come out similar. Every request is recorded as received (nothing redacted) for
 * tests to assert on. A script that runs out answers HTTP 500 saying so, so a test that expects fewer
 * model calls fails loudly.
 *
 * Used by tests and by the demo: no test-framework imports here.
 *
 * ```ts
 * const server = await startScriptedModelServer({
 *   script: [callTool('list_tables', {}), (context) => say(`Found: ${context.lastToolResult?.content}`)],
 * });
 * const client = new OpenAI({ baseURL: server.url, apiKey: 'any' });
 * // ... server.requests[0].body.messages ...
 * await server.close();
 * ```
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  hashedWordVector,
  type ScriptContext,
  type ScriptFault,
  type ScriptReply,
  type ScriptStep,
} from './script-steps.js';
import { ScriptedPromptCache } from './scripted-prompt-cache.js';
import { completionOf, contextOf, readBody, sendError, sendJson, sendStream } from './scripted-wire.js';

/** The script's builders, so scripts and the server come from one import. */
export * from './script-steps.js';

// ---- the server ------------------------------------------------------------------------------

export interface RecordedRequest {
  method: string;
  /** Path with query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined for bodiless requests, the raw text when it is not JSON. */
  body: Record<string, unknown> | undefined;
  /** `Date.now()` when the request arrived, in milliseconds. */
  receivedAt: number;
}

export interface ScriptedModelServerOptions {
  script: ScriptStep[];
  /** Served by `GET /v1/models`; default `['scripted-model']`. */
  models?: string[];
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. Default: any bearer is accepted. */
  apiKey?: string;
  /**
   * The vector of one embedding input, or a fault to answer the whole request with (e.g. `rateLimit()`).
   * Default {@link hashedWordVector}.
   */
  embed?: (text: string) => number[] | ScriptFault;
  /** Interface to listen on; default `127.0.0.1`. `url` names it, or `advertisedHost` when set. */
  host?: string;
  /** Host name clients reach it by, e.g. `host.docker.internal` from a container; default `host`. */
  advertisedHost?: string;
}

export interface ScriptedModelServer {
  /** Base URL for the SDK, ending in `/v1`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** The chat-completion requests only. */
  readonly chatRequests: RecordedRequest[];
  /** The embedding requests only. */
  readonly embeddingRequests: RecordedRequest[];
  /** Steps not yet consumed. */
  readonly remainingSteps: number;
  close(): Promise<void>;
}

type Resolved = ScriptReply | ScriptFault;

class ScriptError extends Error {}

export async function startScriptedModelServer(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const steps = [...options.script];
  const requests: RecordedRequest[] = [];
  const models = options.models ?? ['scripted-model'];
  const timers = new Set<NodeJS.Timeout>();
  let chatCount = 0;
  const promptCache = new ScriptedPromptCache();
  let consumed = 0;

  const wait = (delayMs: number, response: ServerResponse) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, delayMs);
      timers.add(timer);
      response.once('close', () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve();
      });
    });

  /** Unwraps functions, delays and predicates down to a reply or a fault; delays are served on the way. */
  async function resolve(step: ScriptStep, context: ScriptContext, response: ServerResponse): Promise<Resolved> {
    if (typeof step === 'function') return resolve(await step(context), context, response);
    if (step.kind === 'delay') {
      await wait(step.delayMs, response);
      return resolve(step.then, context, response);
    }
    if (step.kind === 'match') {
      if (!step.predicate(context)) {
        throw new ScriptError(
          `scripted model: a nested step (${step.label}) does not match request ${context.requestIndex + 1}; last message: ${JSON.stringify(context.lastMessage)}`,
        );
      }
      return resolve(step.then, context, response);
    }
    return step;
  }

  async function chat(body: Record<string, unknown>, response: ServerResponse): Promise<void> {
    const context = contextOf(body, chatCount++);
    const step = steps[0];
    if (step === undefined) {
      const message = `scripted model: the script ran out after ${consumed} step(s); request ${context.requestIndex + 1} has no step to answer it (last message: ${JSON.stringify(context.lastMessage)})`;
      sendError(response, 500, message, 'script_exhausted', { 'x-should-retry': 'false' });
      return;
    }
    // A predicate that does not hold leaves its step in place, so the failure stays visible.
    if (typeof step !== 'function' && step.kind === 'match' && !step.predicate(context)) {
      const message = `scripted model: step ${consumed + 1} (${step.label}) does not match request ${context.requestIndex + 1}; last message: ${JSON.stringify(context.lastMessage)}`;
      sendError(response, 500, message, 'script_mismatch', { 'x-should-retry': 'false' });
      return;
    }
    steps.shift();
    consumed++;
    let resolved: Resolved;
    try {
      resolved = await resolve(step, context, response);
    } catch (error) {
      const message = error instanceof ScriptError ? error.message : `scripted model: step threw: ${String(error)}`;
      sendError(response, 500, message, 'script_error', { 'x-should-retry': 'false' });
      return;
    }
    if (response.destroyed) return;
    if (resolved.kind === 'fault') {
      sendError(response, resolved.status, resolved.message, resolved.type ?? 'scripted_fault', resolved.headers ?? {});
      return;
    }
    const reply = completionOf(resolved, context, promptCache);
    if (context.stream) sendStream(response, reply, body);
    else sendJson(response, 200, reply);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    const path = request.url ?? '/';
    let body: Record<string, unknown> | undefined;
    let bodyIsJson = true;
    if (text.length > 0) {
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        bodyIsJson = false;
        body = { raw: text };
      }
    }
    requests.push({ method: request.method ?? 'GET', path, headers: request.headers, body, receivedAt: Date.now() });

    const authorization = request.headers.authorization;
    const bearer = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (options.apiKey !== undefined && bearer !== options.apiKey) {
      sendError(
        response,
        401,
        'Incorrect API key provided (scripted).',
        'invalid_request_error',
        {},
        'invalid_api_key',
      );
      return;
    }
    const route = `${request.method} ${path.split('?')[0]}`;
    if (route === 'GET /v1/models') {
      sendJson(response, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'scripted' })),
      });
    } else if (route === 'POST /v1/chat/completions' || route === 'POST /v1/embeddings') {
      if (!bodyIsJson || body === undefined)
        sendError(response, 400, 'The request body is not JSON.', 'invalid_request_error');
      else if (route === 'POST /v1/embeddings') embeddings(body, options.embed ?? hashedWordVector, response);
      else await chat(body, response);
    } else {
      sendError(response, 404, `scripted model: no route for ${route}`, 'invalid_request_error');
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, `scripted model: ${String(error)}`, 'server_error');
      else response.destroy();
    });
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, options.host ?? '127.0.0.1', () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${options.advertisedHost ?? options.host ?? '127.0.0.1'}:${port}/v1`,
    requests,
    get chatRequests() {
      return requests.filter((request) => request.path.startsWith('/v1/chat/completions'));
    },
    get embeddingRequests() {
      return requests.filter((request) => request.path.startsWith('/v1/embeddings'));
    },
    get remainingSteps() {
      return steps.length;
    },
    close: () =>
      new Promise<void>((resolveClose) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}

// ---- embeddings ------------------------------------------------------------------------------

/** Answers `POST /v1/embeddings` in the OpenAI shape; `encoding_format: base64` as the SDK asks by default. */
function embeddings(
  body: Record<string, unknown>,
  embed: (text: string) => number[] | ScriptFault,
  response: ServerResponse,
): void {
  const input = body.input;
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || !texts.every((text) => typeof text === 'string')) {
    sendError(response, 400, "'input' must be a string or an array of strings.", 'invalid_request_error');
    return;
  }
  const vectors: number[][] = [];
  for (const text of texts) {
    const vector = embed(text);
    if (!Array.isArray(vector)) {
      sendError(response, vector.status, vector.message, vector.type ?? 'scripted_fault', vector.headers ?? {});
      return;
    }
    vectors.push(vector);
  }
  const base64 = body.encoding_format === 'base64';
  const tokens = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  sendJson(response, 200, {
    object: 'list',
    data: vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
    })),
    model: typeof body.model === 'string' ? body.model : '',
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}
