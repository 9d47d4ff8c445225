/**
 * Picks the Store: Redis when a URL, Sentinels or a Cluster are given (several replicas), else the embedded SQLite file.
 */
import { join } from 'node:path';
import type { Config, RedisClusterSettings, RedisSentinelSettings, RedisWaitSettings } from '../base/config.js';
import type { Logger } from '../base/logger.js';
import type { Store } from '../ports/store.js';
import type { AuditLog } from './audit-log.js';
import { RedisStore } from './redis-store.js';
import { SqliteStore } from './sqlite-store.js';

export interface StoreOptions {
  /** REDIS_URL (`config.redisUrl`); when set, the store lives in that Redis. */
  redisUrl?: string | undefined;
  /** TALLY_REDIS_SENTINELS (`config.redisSentinel`): the store lives in the master these Sentinels name. */
  redisSentinel?: RedisSentinelSettings | undefined;
  /** TALLY_REDIS_CLUSTER (`config.redisCluster`): the store is spread over this Redis Cluster's masters. */
  redisCluster?: RedisClusterSettings | undefined;
  /** How many Redis replicas must hold an inbox entry before it is acknowledged. Default none. */
  redisWait?: RedisWaitSettings;
  /** The SQLite file used without Redis, usually `<TALLY_HOME>/state.db`; created when missing. */
  sqlitePath: string;
  /** Prefix of every Redis key, so deployments or test files can share one Redis. Default `tally`. */
  keyPrefix?: string;
  /** How long to wait for Redis to accept the connection, in ms. Default 5000. */
  connectTimeoutMs?: number;
  logger: Logger;
}

/** A store, and the audit trail kept beside it on the same connection. */
export type StoreWithAudit = Store & {
  auditLog(): AuditLog;
  /** Makes deleted content unrecoverable from the store's own files (after deletion on request). */
  reclaim(): Promise<void>;
};

/**
 * Opens the store. Throws StoreUnavailableError when Redis does not answer (it names where) or
 * the SQLite file cannot be opened (it names TALLY_HOME).
 */
export async function createStore(options: StoreOptions): Promise<StoreWithAudit> {
  const logger = options.logger.child({ component: 'store' });
  const target = options.redisSentinel
    ? { sentinel: options.redisSentinel }
    : options.redisCluster
      ? { cluster: options.redisCluster }
      : options.redisUrl === undefined
        ? undefined
        : { url: options.redisUrl };
  if (target === undefined) return SqliteStore.open(options.sqlitePath, logger);
  return RedisStore.connect({
    target,
    logger,
    ...(options.redisWait === undefined ? {} : { wait: options.redisWait }),
    ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
  });
}

/** The store the configuration names: Redis (REDIS_URL, Sentinels or Cluster; TALLY_REDIS_PREFIX) or `<TALLY_HOME>/state.db`. */
export function storeOf(
  config: Pick<Config, 'redisUrl' | 'redisSentinel' | 'redisCluster' | 'redisWait' | 'redisPrefix' | 'home'>,
  logger: Logger,
): Promise<StoreWithAudit> {
  return createStore({
    redisUrl: config.redisUrl,
    redisSentinel: config.redisSentinel,
    redisCluster: config.redisCluster,
    redisWait: config.redisWait,
    keyPrefix: config.redisPrefix,
    sqlitePath: join(config.home, 'state.db'),
    logger,
  });
}
