/**
 * The state port: sessions, reports, journals and logs, keyed by strings such as a thread key.
 * keyv underneath: a local SQLite file by default, Redis (REDIS_URL) for several replicas.
 *
 * Values and list items are JSON: what `JSON.stringify` keeps is what comes back. Infrastructure
 * failures (Redis gone, file unusable, store closed) throw StoreUnavailableError.
 */

export interface LockOptions {
  /**
   * The lock expires after this, so a crashed holder cannot block a thread for ever; a live holder
   * keeps extending it while its task runs. Default 10 min.
   */
  ttlMs?: number;
  /** Give up waiting after this (throws LockTimeoutError); 0 tries once. Default: wait as long as the TTL. */
  waitMs?: number;
}

export interface Store {
  get<T>(key: string): Promise<T | undefined>;
  /**
   * Stores a JSON-serialisable value, forgotten after `ttlMs` (a whole number > 0) when given.
   * Setting the key again without `ttlMs` keeps the new value for good.
   */
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Appends to an append-only list and returns its new length, which is also the item's position
   * plus one. Atomic: concurrent appends, from any replica, each land exactly once.
   */
  append<T>(list: string, item: T): Promise<number>;
  /** Items of a list in order, from `from` (default 0), at most `limit` (default all). */
  range<T>(list: string, from?: number, limit?: number): Promise<T[]>;
  /**
   * Runs `task` while holding the named lock; one holder at a time across every replica. Waiters
   * in one process run in arrival order, and a replica waiting on another one is let in at its next
   * hand-over. The lock is released when the task settles, also when it throws.
   */
  withLock<T>(name: string, task: () => Promise<T>, options?: LockOptions): Promise<T>;
  /** Closes connections; locks still held are no longer extended and expire after their TTL. */
  close(): Promise<void>;
}
