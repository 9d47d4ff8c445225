/**
 * The state port: sessions, reports, journals and logs, keyed by strings such as a thread key.
 * keyv underneath: a local SQLite file by default, Redis (REDIS_URL) for several replicas.
 */

export interface LockOptions {
  /** The lock expires after this, so a crashed holder cannot block a thread for ever. Default 10 min. */
  ttlMs?: number;
  /** Give up waiting after this (throws LockTimeoutError). Default: wait as long as the TTL. */
  waitMs?: number;
}

export interface Store {
  get<T>(key: string): Promise<T | undefined>;
  /** Stores a JSON-serialisable value, forgotten after `ttlMs` when given. */
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Appends to an append-only list and returns its new length. Callers serialise appends per list. */
  append<T>(list: string, item: T): Promise<number>;
  /** Items of a list in order, from `from` (default 0), at most `limit`. */
  range<T>(list: string, from?: number, limit?: number): Promise<T[]>;
  /** Runs `task` while holding the named lock; one holder at a time across every replica. */
  withLock<T>(name: string, task: () => Promise<T>, options?: LockOptions): Promise<T>;
  close(): Promise<void>;
}
