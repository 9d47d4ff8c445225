/**
 * Thread locks die with their holder: a process that holds one and is killed (SIGKILL, no clean-up)
 * frees it within the lock's TTL, while a live holder keeps it for as long as its task runs, however
 * much longer than the TTL that is. Real Redis and a real SQLite file, and a real second process.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockTimeoutError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import type { Store } from '../../src/ports/store.js';
import { createStore } from '../../src/store/create-store.js';
import { createRedisTestSpace, type RedisTestSpace } from '../support/redis.js';

const TTL_MS = 1500;
const ROOT = join(import.meta.dirname, '..', '..');
const logger = createLogger({ level: 'silent' });

let redis: RedisTestSpace;
let folder: string;

beforeAll(async () => {
  redis = await createRedisTestSpace('lock-death');
  folder = await mkdtemp(join(tmpdir(), 'tally-lock-death-'));
});

afterAll(async () => {
  await redis?.cleanup();
  await rm(folder, { recursive: true, force: true });
});

/** Starts a process holding `name`; resolves with a function that SIGKILLs it by PID once it holds it. */
async function holderProcess(where: string, keyPrefix: string, name: string): Promise<() => Promise<void>> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/support/hold-lock.ts', where, keyPrefix, name, String(TTL_MS)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let said = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('held')) resolve();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}): ${said}`)));
  });
  return async () => {
    if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    await exited;
  };
}

interface Opened {
  store: Store;
  where: string;
  /** How long the lock still lasts as the backend records it, in ms (0 when it is not held). */
  remainingMs(name: string): Promise<number>;
}

const cases: Array<{ store: string; open: (prefix: string) => Promise<Opened> }> = [
  {
    store: 'Redis',
    open: async (prefix) => ({
      store: await createStore({
        redisUrl: redis.url,
        keyPrefix: prefix,
        sqlitePath: join(folder, 'unused.db'),
        logger,
      }),
      where: redis.url,
      remainingMs: async (name) => Math.max(0, await redis.client.pTTL(`${prefix}:lock:${name}`)),
    }),
  },
  {
    store: 'SQLite',
    open: async (prefix) => {
      const path = join(folder, `${prefix.replaceAll(':', '-')}.db`);
      return {
        store: await createStore({ sqlitePath: path, logger }),
        where: path,
        remainingMs: async (name) => {
          const file = new Database(path, { readonly: true });
          try {
            const row = file.prepare('SELECT expires FROM locks WHERE name = ?').get(name) as
              | { expires: number }
              | undefined;
            return row ? Math.max(0, row.expires - Date.now()) : 0;
          } finally {
            file.close();
          }
        },
      };
    },
  },
];

describe.each(cases)('locks on $store', ({ open }) => {
  it('are free within their TTL once the process holding them is killed', async () => {
    const prefix = `${redis.keyPrefix}:killed`;
    const { store, where, remainingMs } = await open(prefix);
    try {
      const kill = await holderProcess(where, prefix, 'thread:T1');
      // While it lives, nobody else gets the lock, also after several TTLs (it renews it).
      await expect(
        store.withLock('thread:T1', async () => 'mine', { ttlMs: TTL_MS, waitMs: 2 * TTL_MS }),
      ).rejects.toThrow(LockTimeoutError);
      await kill();
      // Nobody renews it now: as recorded, it lasts at most one TTL more (SQLite also sees the PID is gone).
      const left = await remainingMs('thread:T1');
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(TTL_MS);
      const taken = await store.withLock('thread:T1', async () => 'mine', { ttlMs: TTL_MS, waitMs: 10 * TTL_MS });
      expect(taken).toBe('mine');
    } finally {
      await store.close();
    }
  }, 60_000);
});
