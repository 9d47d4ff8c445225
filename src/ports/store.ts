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
  /** Forgets what is stored under `name`: its value and the list of that name, whichever exist. */
  delete(name: string): Promise<void>;
  /**
   * Names of the values and lists that start with `prefix`, each once, in no particular order. Scans
   * in batches (Redis SCAN), so it is safe on a busy store; names written meanwhile may be missed.
   */
  keys(prefix: string): Promise<string[]>;
  /**
   * Appends to an append-only list and returns its new length, which is also the item's position
   * plus one. Atomic: concurrent appends, from any replica, each land exactly once.
   */
  append<T>(list: string, item: T): Promise<number>;
  /**
   * Items of a list in order, from position `from` (default 0), at most `limit` (default all).
   * Positions are for good: after `trim`, `from` still means the same item (earlier ones read as gone).
   */
  range<T>(list: string, from?: number, limit?: number): Promise<T[]>;
  /**
   * Drops a list's items before position `before`; the rest keep their positions, and appends go on
   * numbering after the last one. Returns how many items were dropped.
   */
  trim(list: string, before: number): Promise<number>;
  /**
   * Removes every item equal to `item` (same JSON) and returns how many. For lists read whole (sets of
   * names): positions after a removed item are no longer meaningful.
   */
  remove<T>(list: string, item: T): Promise<number>;
  /**
   * Runs `task` while holding the named lock; one holder at a time across every replica. Waiters
   * in one process run in arrival order, and a replica waiting on another one is let in at its next
   * hand-over. The lock is released when the task settles, also when it throws.
   */
  withLock<T>(name: string, task: () => Promise<T>, options?: LockOptions): Promise<T>;
  /**
   * Resolves once what this process wrote so far would outlive the loss of the server holding it, as far as the
   * deployment asks (Redis: WAIT for TALLY_REDIS_WAIT_REPLICAS replicas, at most TALLY_REDIS_WAIT_MS; SQLite: each
   * write is on disk already). Called before a message is acknowledged.
   */
  durable(): Promise<void>;
  /** Closes connections; locks still held are no longer extended and expire after their TTL. */
  close(): Promise<void>;
}
