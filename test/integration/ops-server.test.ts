/**
 * The ops port with real parts: a Redis server this file starts itself (so it can stop it without
 * touching the shared one on 6379), the Redis store, real HTTP servers for the model check and a real
 * SQLite database. `/readyz` must turn 503 when Redis dies and 200 again once it is back; `/metrics`
 * must parse as the Prometheus text format and move when a turn runs.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.js';
import { SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import { type OpsServer, startOpsServer } from '../../src/ops/ops-server.js';
import { PrometheusMetrics } from '../../src/ops/prometheus-metrics.js';
import {
  checkReadiness,
  databaseCheck,
  engineCheck,
  modelCheck,
  type ReadinessCheck,
  type ReadinessResult,
  storeCheck,
} from '../../src/ops/readiness.js';
import type { Store } from '../../src/ports/store.js';
import { createStore } from '../../src/store/create-store.js';
import { cleanUp } from '../support/clean-up.js';
import { freePort } from '../support/free-port.js';
import { parseStrict } from '../support/prometheus-text.js';
import { eventually, startRedis } from '../support/redis-processes.js';
import { LIMITS } from '../support/sample-databases.js';

const logger = createLogger({ level: 'silent' });

async function get(url: string): Promise<{ status: number; type: string | null; body: string }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

async function readyz(server: OpsServer): Promise<{ status: number; result: ReadinessResult }> {
  const response = await get(`${server.url}/readyz`);
  return { status: response.status, result: JSON.parse(response.body) as ReadinessResult };
}

describe('ops server', () => {
  let home: string;
  let redisPort: number;
  let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
  let store: Store | undefined;
  let metrics: PrometheusMetrics;
  let server: OpsServer;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'tally-ops-'));
    redisPort = await freePort();
    redis = await startRedis(redisPort, home);
    store = await createStore({
      redisUrl: `redis://127.0.0.1:${redisPort}`,
      sqlitePath: join(home, 'state.db'),
      keyPrefix: `tally-test:ops:${randomBytes(4).toString('hex')}`,
      connectTimeoutMs: 3_000,
      logger,
    });
    const readyStore = store;
    metrics = new PrometheusMetrics({
      sandboxStats: () => ({ live: 2, pooled: 1, starting: 0, waiting: 0, parked: 0 }),
    });
    server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      metrics,
      readiness: () => checkReadiness([storeCheck(readyStore)], { timeoutMs: 1_000 }),
      logger,
    });
  });

  afterAll(async () => {
    await cleanUp(
      () => server?.close(),
      () => store?.close(),
      () => redis?.kill(),
      () => home && rm(home, { recursive: true, force: true }),
    );
  });

  it('answers /healthz while the process runs', async () => {
    const response = await get(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(response.type).toMatch(/^application\/json/);
    expect(JSON.parse(response.body)).toEqual({ status: 'ok' });
  });

  it('serves /metrics in the Prometheus text format, moving when a turn runs', async () => {
    const turnsDone = async () => {
      const response = await get(`${server.url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.type).toMatch(/^text\/plain; version=0\.0\.4/);
      const families = parseStrict(response.body);
      const kernels = families.find((f) => f.name === 'tally_kernels');
      expect(kernels?.metrics.find((m) => m.labels?.state === 'live')?.value).toBe('2');
      const turns = families.find((f) => f.name === 'tally_turns_total');
      expect(turns?.type).toBe('COUNTER');
      return Number(turns?.metrics.find((m) => m.labels?.end === 'done')?.value);
    };

    const before = await turnsDone();
    const endTurn = metrics.turnStarted();
    endTurn('done');
    expect(await turnsDone()).toBe(before + 1);
  });

  it('answers 404 for unknown paths and 405 for other methods', async () => {
    expect((await get(`${server.url}/nope`)).status).toBe(404);
    expect((await get(`${server.url}/`)).status).toBe(404);
    const post = await fetch(`${server.url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('turns /readyz 503 when Redis stops and 200 when it is back', async () => {
    const up = await readyz(server);
    expect(up.status).toBe(200);
    expect(up.result.ready).toBe(true);
    expect(up.result.checks.store?.ok).toBe(true);

    await redis?.kill();
    let down: Awaited<ReturnType<typeof readyz>> | undefined;
    await eventually('/readyz answers 503', async () => {
      down = await readyz(server);
      return down.status === 503;
    });
    expect(down?.result.ready).toBe(false);
    expect(down?.result.checks.store?.ok).toBe(false);
    expect(down?.result.checks.store?.error).toMatch(/STORE_UNAVAILABLE/);

    redis = await startRedis(redisPort, home);
    // The store reconnects in the background, with a backoff of up to about 2 s.
    await eventually('/readyz answers 200 again', async () => (await readyz(server)).status === 200, 30_000);
    expect((await readyz(server)).result.checks.store?.ok).toBe(true);
  });
});

describe('readiness checks', () => {
  let modelServer: Server;
  let modelUrl: string;
  let home: string;
  let database: SqliteDatabase | undefined;

  beforeAll(async () => {
    // Answers like an endpoint that wants a key: reachable, but 401.
    modelServer = createHttpServer((_request, response) => {
      response.writeHead(401, { 'Content-Type': 'application/json' });
      response.end('{"error":"missing key"}');
    });
    await new Promise<void>((resolve) => modelServer.listen(0, '127.0.0.1', resolve));
    const address = modelServer.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    modelUrl = `http://127.0.0.1:${address.port}/v1`;

    home = await mkdtemp(join(tmpdir(), 'tally-readiness-'));
    const path = join(home, 'probe.db');
    new BetterSqlite(path).exec('CREATE TABLE t (x INTEGER)').close();
    database = await SqliteDatabase.open({ name: 'probe', path, limits: LIMITS });
  });

  afterAll(async () => {
    await cleanUp(
      () => database?.close(),
      () => {
        modelServer.closeAllConnections();
        return new Promise((resolve) => modelServer.close(resolve));
      },
      () => home && rm(home, { recursive: true, force: true }),
    );
  });

  it('passes for a reachable model endpoint (even one that answers 401) and a working database', async () => {
    const result = await checkReadiness([modelCheck(modelUrl), ...(database ? [databaseCheck(database)] : [])]);
    expect(result).toEqual({
      ready: true,
      checks: {
        model: { ok: true, ms: expect.any(Number) },
        'database:probe': { ok: true, ms: expect.any(Number) },
      },
    });
  });

  it('fails an unreachable model endpoint naming only its host, never its credentials', async () => {
    const port = await freePort();
    const result = await checkReadiness([
      modelCheck(`http://ann:hunter2@127.0.0.1:${port}/v1?api_key=sk-abcdefghijkl`),
    ]);
    expect(result.ready).toBe(false);
    const error = result.checks.model?.error ?? '';
    expect(error).toContain(`127.0.0.1:${port}`);
    expect(error).toContain('ECONNREFUSED');
    for (const secret of ['ann', 'hunter2', 'api_key', 'sk-abc']) expect(error).not.toContain(secret);
  });

  it('fails a check that does not answer in time, while the others still report', async () => {
    let aborted = false;
    const hanging: ReadinessCheck = {
      name: 'engine',
      check: (signal) => {
        signal.addEventListener('abort', () => {
          aborted = true;
        });
        return new Promise(() => {}); // ignores its signal: only the time limit can end it
      },
    };
    const result = await checkReadiness([hanging, modelCheck(modelUrl)], { timeoutMs: 200 });
    expect(result.ready).toBe(false);
    expect(result.checks.engine).toMatchObject({ ok: false, error: 'no answer within 200 ms' });
    expect(result.checks.model?.ok).toBe(true);
    expect(aborted).toBe(true);
  });

  it('keeps secrets out of the reasons it reports', async () => {
    const result = await checkReadiness([
      engineCheck(() =>
        Promise.reject(
          new Error(
            'connect failed to redis://default:s3cret@db.internal:6379/0?token=t0ken with Authorization: Bearer b3arer password=pw1',
          ),
        ),
      ),
    ]);
    const error = result.checks.engine?.error ?? '';
    expect(error).toContain('db.internal:6379');
    for (const secret of ['s3cret', 't0ken', 'b3arer', 'pw1']) expect(error).not.toContain(secret);
  });

  it("shows what a passing check reports: the engine's container runtime", async () => {
    const result = await checkReadiness([
      engineCheck(
        async () => 'pong',
        'engine',
        () => 'runtime runsc',
      ),
    ]);
    expect(result.checks.engine).toEqual({ ok: true, ms: expect.any(Number), detail: 'runtime runsc' });
  });

  it('is ready with no checks at all', async () => {
    expect(await checkReadiness([])).toEqual({ ready: true, checks: {} });
  });

  it('refuses two checks with one name, which would hide one of them', async () => {
    await expect(checkReadiness([modelCheck(modelUrl), modelCheck(modelUrl)])).rejects.toThrow(/repeated: model/);
  });
});
