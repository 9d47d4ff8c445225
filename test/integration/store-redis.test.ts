/**
 * What only the Redis store does: real Redis lists and keys under a prefix, honest errors when
 * Redis is missing or goes away (and recovery when it is back), and locks that are fair between
 * replicas.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AppError, StoreUnavailableError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import type { Store } from '../../src/ports/store.js';
import { createStore } from '../../src/store/create-store.js';
import { createRedisTestSpace, type RedisTestSpace } from '../support/redis.js';

const logger = createLogger({ level: 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let space: RedisTestSpace;
const opened: Store[] = [];

async function open(redisUrl = space.url): Promise<Store> {
  const store = await createStore({ redisUrl, keyPrefix: space.keyPrefix, sqlitePath: '/nonexistent', logger });
  opened.push(store);
  return store;
}

/** Listens on a free local port; `connections` lets a test cut every client off. */
async function listen(onConnection: (socket: Socket) => void, port = 0) {
  const connections = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    async close() {
      for (const socket of connections) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A TCP proxy to the test Redis, so a test can make Redis vanish and come back. */
function proxyToRedis(port = 0) {
  const target = new URL(space.url);
  return listen((socket) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  }, port);
}

beforeAll(async () => {
  space = await createRedisTestSpace('redis-store');
});

afterAll(async () => {
  for (const store of opened) await store.close();
  await space.cleanup();
});

describe('Redis store', () => {
  it('keeps values, lists and locks under its key prefix, lists as real Redis lists', async () => {
    const store = await open();
    await store.set('session:slack:T1:C1:1', { state: 'open' });
    await store.set('expiring', 1, 60_000);
    await store.append('journal:slack:T1:C1:1', { cell: 1 });
    await store.append('journal:slack:T1:C1:1', { cell: 2 });
    await store.withLock('turn:slack:T1:C1:1', async () => {
      expect(await space.client.exists(`${space.keyPrefix}:lock:turn:slack:T1:C1:1`)).toBe(1);
    });
    expect(await space.keys()).toEqual([
      `${space.keyPrefix}:kv:expiring`,
      `${space.keyPrefix}:kv:session:slack:T1:C1:1`,
      `${space.keyPrefix}:list:journal:slack:T1:C1:1`,
    ]);
    const list = `${space.keyPrefix}:list:journal:slack:T1:C1:1`;
    expect(await space.client.type(list)).toBe('list');
    expect(await space.client.lRange(list, 0, -1)).toEqual(['{"cell":1}', '{"cell":2}']);
    expect(await space.client.pTTL(`${space.keyPrefix}:kv:expiring`)).toBeGreaterThan(0);
    expect(await space.client.pTTL(`${space.keyPrefix}:kv:session:slack:T1:C1:1`)).toBe(-1);
  });

  it('sees items another client pushed to the same list', async () => {
    const store = await open();
    await store.append('mixed-writers', 'from the store');
    await space.client.rPush(`${space.keyPrefix}:list:mixed-writers`, JSON.stringify({ from: 'elsewhere' }));
    expect(await store.append('mixed-writers', 'third')).toBe(3);
    expect(await store.range('mixed-writers')).toEqual(['from the store', { from: 'elsewhere' }, 'third']);
  });

  it('fails with StoreUnavailableError naming REDIS_URL when nothing listens, without the password', async () => {
    const free = await listen(() => {});
    await free.close();
    const url = `redis://:s3cret@127.0.0.1:${free.port}`;
    const error = await createStore({ redisUrl: url, sqlitePath: '/nonexistent', logger }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as AppError).code).toBe('STORE_UNAVAILABLE');
    expect((error as Error).message).toContain('REDIS_URL');
    expect((error as Error).message).toContain(`127.0.0.1:${free.port}`);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('fails with StoreUnavailableError when the server accepts connections but never replies', async () => {
    const silent = await listen(() => {});
    try {
      const error = await createStore({
        redisUrl: `redis://127.0.0.1:${silent.port}`,
        sqlitePath: '/nonexistent',
        connectTimeoutMs: 300,
        logger,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/no reply within 300 ms/);
    } finally {
      await silent.close();
    }
  });

  it('fails fast while Redis is gone and works again once it is back', async () => {
    let proxy = await proxyToRedis();
    const port = proxy.port;
    const store = await open(`redis://127.0.0.1:${port}`);
    await store.set('survives', 'yes');
    await proxy.close();
    await vi.waitFor(async () => {
      await expect(store.get('survives')).rejects.toBeInstanceOf(StoreUnavailableError);
    });
    await expect(store.append('during-outage', 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    proxy = await proxyToRedis(port);
    try {
      await vi.waitFor(async () => expect(await store.get('survives')).toBe('yes'), { timeout: 10_000 });
      expect(await store.append('after-outage', 1)).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('lets a waiting replica in between the tasks another replica has queued', async () => {
    const busy = await open();
    const patient = await open();
    const finished: string[] = [];
    const queued = Array.from({ length: 40 }, (_, index) =>
      busy.withLock('fair', async () => {
        await sleep(20);
        finished.push(`busy ${index}`);
      }),
    );
    // The busy replica hands the lock from task to task locally; the waiting replica, which arrived
    // first, still gets it at the next hand-over (or the one after, if one was under way).
    const positions: Array<{ arrived: number; ran: number }> = [];
    for (let round = 0; round < 3; round++) {
      // Let the busy replica get back to handing the lock over locally first.
      const since = finished.length;
      await vi.waitFor(() => expect(finished.length).toBeGreaterThanOrEqual(since + 2), { interval: 5 });
      const arrived = finished.length;
      await patient.withLock('fair', async () => finished.push(`patient ${round}`), { waitMs: 5_000 });
      positions.push({ arrived, ran: finished.indexOf(`patient ${round}`) });
    }
    await Promise.all(queued);
    for (const { arrived, ran } of positions) expect(ran).toBeLessThanOrEqual(arrived + 2);
  });

  it('forgets a waiting replica that vanished, so it does not block the lock', async () => {
    const holder = await open();
    const vanishing = await open();
    let finish!: () => void;
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    const held = holder.withLock('stale-waiter', () => {
      started();
      return new Promise<void>((resolve) => (finish = resolve));
    });
    await holding;
    const waiting = vanishing.withLock('stale-waiter', async () => 'never');
    await vi.waitFor(async () =>
      expect(await space.client.hLen(`${space.keyPrefix}:lock-waiters:stale-waiter`)).toBe(1),
    );
    await vanishing.close();
    await expect(waiting).rejects.toBeInstanceOf(StoreUnavailableError);
    finish();
    await held;
    // The vanished waiter arrived first; once it is stale (2 s without polling) the lock is free to others.
    const late = await open();
    expect(await late.withLock('stale-waiter', async () => 'got it', { waitMs: 10_000 })).toBe('got it');
    expect(await space.client.hLen(`${space.keyPrefix}:lock-waiters:stale-waiter`)).toBe(0);
  });
});
