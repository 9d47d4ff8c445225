/**
 * Picks the Store: Redis when a URL is given (several replicas), else the embedded SQLite file.
 */
import { join } from 'node:path';
import type { Config } from '../base/config.js';
import type { Logger } from '../base/logger.js';
import type { Store } from '../ports/store.js';
import type { AuditLog } from './audit-log.js';
import { RedisStore } from './redis-store.js';
import { SqliteStore } from './sqlite-store.js';

export interface StoreOptions {
  /** REDIS_URL (`config.redisUrl`); when set, the store lives in that Redis. */
  redisUrl?: string | undefined;
  /** The SQLite file used without Redis, usually `<TALLY_HOME>/state.db`; created when missing. */
  sqlitePath: string;
  /** Prefix of every Redis key, so deployments or test files can share one Redis. Default `tally`. */
  keyPrefix?: string;
  /** How long to wait for Redis to accept the connection, in ms. Default 5000. */
  connectTimeoutMs?: number;
  logger: Logger;
}

/**
 * Opens the store. Throws StoreUnavailableError when Redis does not answer (it names REDIS_URL) or
 * the SQLite file cannot be opened (it names TALLY_HOME).
 */
/** A store, and the audit trail kept beside it on the same connection. */
export type StoreWithAudit = Store & {
  auditLog(): AuditLog;
  /** Makes deleted content unrecoverable from the store's own files (after deletion on request). */
  reclaim(): Promise<void>;
};

export async function createStore(options: StoreOptions): Promise<StoreWithAudit> {
  const logger = options.logger.child({ component: 'store' });
  if (options.redisUrl === undefined) return SqliteStore.open(options.sqlitePath, logger);
  return RedisStore.connect({
    url: options.redisUrl,
    logger,
    ...(options.keyPrefix === undefined ? {} : { keyPrefix: options.keyPrefix }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
  });
}

/** The store the configuration names: Redis (REDIS_URL, TALLY_REDIS_PREFIX) or `<TALLY_HOME>/state.db`. */
export function storeOf(
  config: Pick<Config, 'redisUrl' | 'redisPrefix' | 'home'>,
  logger: Logger,
): Promise<StoreWithAudit> {
  return createStore({
    redisUrl: config.redisUrl,
    keyPrefix: config.redisPrefix,
    sqlitePath: join(config.home, 'state.db'),
    logger,
  });
}
