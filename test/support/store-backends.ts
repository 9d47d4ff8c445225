/**
 * The stores a test runs against, each able to open several Store instances on the same data (a
 * restart, or another replica): the embedded SQLite file in a temporary folder, a real Redis under a
 * key prefix of the test's own (test/support/redis.ts), and a real Redis Cluster of the test's own
 * (three masters and three replicas, test/support/redis-processes.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/base/logger.js';
import { createStore, type StoreWithAudit } from '../../src/store/create-store.js';
import { createRedisTestSpace, type RedisTestSpace } from './redis.js';
import { type RedisClusterSet, startRedisCluster } from './redis-processes.js';

const logger = createLogger({ level: 'silent' });

export interface StoreBackend {
  name: string;
  setUp(): Promise<void>;
  /** A new Store instance on the same data (a restart, or another replica). */
  open(): Promise<StoreWithAudit>;
  tearDown(): Promise<void>;
}

/** `<folder>/<file>` in a new temporary folder; default file `state.db`. */
export function sqliteBackend(prefix: string, file = 'state.db'): StoreBackend {
  let directory = '';
  return {
    name: 'SQLite file',
    async setUp() {
      directory = mkdtempSync(join(tmpdir(), `tally-${prefix}-`));
    },
    open: () => createStore({ sqlitePath: join(directory, file), logger }),
    async tearDown() {
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export function redisBackend(prefix: string): StoreBackend {
  let space: RedisTestSpace | undefined;
  return {
    name: 'Redis',
    async setUp() {
      space = await createRedisTestSpace(prefix);
    },
    open() {
      if (!space) throw new Error('set up first');
      return createStore({ redisUrl: space.url, keyPrefix: space.keyPrefix, sqlitePath: '/nonexistent', logger });
    },
    async tearDown() {
      await space?.cleanup();
    },
  };
}

export function redisClusterBackend(prefix: string): StoreBackend {
  let cluster: RedisClusterSet | undefined;
  return {
    name: 'Redis Cluster',
    async setUp() {
      cluster = await startRedisCluster();
    },
    open() {
      if (!cluster) throw new Error('set up first');
      return createStore({ redisCluster: cluster.settings, keyPrefix: prefix, sqlitePath: '/nonexistent', logger });
    },
    async tearDown() {
      await cluster?.close();
    },
  };
}
