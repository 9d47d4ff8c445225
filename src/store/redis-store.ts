/**
 * The shared Store for several replicas: keyv (@keyv/redis) on Redis for values, a real Redis list
 * for append-only lists, and a lock key taken with a Lua script and given back with a
 * compare-and-delete, so only its owner can extend or delete it. Needs Redis 5 or newer.
 *
 * Keys: `<prefix>:kv:<key>`, `<prefix>:list:<list>`, `<prefix>:lock:<name>` and, while replicas
 * wait for a lock, `<prefix>:lock-waiters:<name>`. A list that was trimmed also has
 * `<prefix>:list-base:<list>`, the count of items dropped from its front: a Redis index plus the base
 * is the item's permanent position. Append, range and trim read the base in the same Lua script as
 * the list, so a trim by another replica never shifts what they see.
 *
 * In a Redis Cluster the list and lock names are hash tags (`<prefix>:list:{<list>}`), so each script's keys
 * share one slot while lists and locks spread over the masters: a thread's lists are its own, and a global
 * structure (a list every replica appends to, a lock every replica takes) is one name on one master by design.
 * A call whose master died waits, up to CLUSTER_FAILOVER_WAIT_MS, for the cluster to promote its replica.
 *
 * Connecting fails at once when Redis does not answer. Once connected, a lost connection is retried
 * for ever in the background while calls fail fast with StoreUnavailableError (no offline queue),
 * so a turn fails honestly rather than hanging.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import KeyvRedis from '@keyv/redis';
import type { RedisClientType } from '@redis/client';
import Keyv from 'keyv';
import type { RedisWaitSettings } from '../base/config-types.js';
import { StoreUnavailableError } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import type { LockOptions, Store } from '../ports/store.js';
import type { AuditLog } from './audit-log.js';
import { type LockBackend, LockRunner } from './lock-runner.js';
import { RedisAuditLog } from './redis-audit-log.js';
import { RedisConnection, type RedisTarget } from './redis-client.js';
import { ClusterFailover } from './redis-cluster-failover.js';
import { isConnectionError, reasonOf } from './redis-errors.js';
import { APPEND_SCRIPT, RANGE_SCRIPT, TRIM_SCRIPT } from './redis-list-scripts.js';
import { ACQUIRE_SCRIPT, EXTEND_SCRIPT, RELEASE_SCRIPT, STALE_WAITER_MS } from './redis-lock-scripts.js';
import { checkRange, checkTtl, parseItem, serialiseItem } from './store-values.js';

export interface RedisStoreOptions {
  /** `{ url }` (`redis://[user:password@]host:port[/db]` or `rediss://…`), `{ sentinel }` or `{ cluster }`. */
  target: RedisTarget;
  /** How many replicas `durable()` waits for, and how long. Default none. */
  wait?: RedisWaitSettings;
  /** Prefix of every key; lets deployments or test files share one Redis. Default `tally`. */
  keyPrefix?: string;
  /** How long to wait for the TCP connection, in ms. Default 5000. */
  connectTimeoutMs?: number;
  logger: Logger;
}

export class RedisStore implements Store {
  private readonly keyv: Keyv;
  private readonly locks: LockRunner;
  private closed = false;
  private auditTrail: RedisAuditLog | undefined;
  /** Whether the last `durable()` found its replicas: a change is logged, not every message. */
  private replicated = true;
  private readonly failover: ClusterFailover;

  private constructor(
    private readonly client: RedisConnection,
    private readonly prefix: string,
    private readonly wait: RedisWaitSettings,
    private readonly logger: Logger,
  ) {
    const namespace = `${prefix}:kv`;
    // node-redis client types are invariant in their generics; the adapter works with a client or a Sentinel.
    const adapter = new KeyvRedis(client.native as RedisClientType, {
      namespace,
      keyPrefixSeparator: ':',
      throwOnConnectError: true,
      throwOnErrors: true,
    });
    this.keyv = new Keyv(adapter, {
      namespace,
      useKeyPrefix: false,
      throwOnErrors: true,
      serialize: (data) => JSON.stringify(data),
      deserialize: (text) => JSON.parse(text),
    });
    this.locks = new LockRunner(this.lockBackend(), logger);
    this.failover = new ClusterFailover(client, logger, () => this.closed);
  }

  /** Connects, or throws StoreUnavailableError naming where when Redis does not answer. */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const logger = options.logger;
    let everReady = false;
    let healthy = false;
    const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
    const client = RedisConnection.open(options.target, connectTimeoutMs, () => everReady);
    const redis = client.location;
    client.watch(
      (error) => {
        if (healthy) logger.warn({ err: error, redis }, 'redis connection lost; reconnecting');
        healthy = false;
      },
      (master) => {
        if (master && everReady) logger.warn({ redis, master }, 'redis master changed (Sentinel failover)');
        else if (everReady && !healthy) logger.info({ redis }, 'redis connection restored');
        healthy = true;
      },
    );
    try {
      // One deadline for connecting and the first reply: a server that accepts the connection but
      // never replies is not a Redis that answers.
      await withDeadline(connectTimeoutMs, async () => {
        await client.connect();
        await client.ping();
      });
    } catch (error) {
      if (client.isOpen) client.destroy();
      throw new StoreUnavailableError(redis, `Redis does not answer (${reasonOf(error)})`, error);
    }
    everReady = true;
    healthy = true;
    const wait = options.wait ?? { replicas: 0, timeoutMs: 1000 };
    return new RedisStore(client, options.keyPrefix ?? 'tally', wait, logger);
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.call(() => this.keyv.get<T>(key));
  }

  async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    checkTtl(ttlMs);
    await this.call(() => this.keyv.set(key, value, ttlMs));
  }

  async delete(name: string): Promise<void> {
    await this.call(async () => {
      await this.client.del([this.key('list', name), this.key('list-base', name)]);
      await this.keyv.delete(name);
    });
  }

  async keys(prefix: string): Promise<string[]> {
    const names = new Set<string>();
    for (const kind of ['kv', 'list'] as const) {
      // keyv's keys are never tagged; a Cluster's lists are `<namespace>{<name>}`.
      const namespace = `${this.prefix}:${kind}:`;
      const tagged = kind === 'list' && this.client.isCluster;
      const start = tagged ? `${namespace}{` : namespace;
      await this.call(async () => {
        const match = `${escapeGlob(start + prefix)}*`;
        for await (const batch of this.client.scan(match, 1000)) {
          for (const key of batch) names.add(tagged ? key.slice(start.length, -1) : key.slice(start.length));
        }
      });
    }
    return [...names];
  }

  async append<T>(list: string, item: T): Promise<number> {
    const text = serialiseItem(item);
    const keys = [this.key('list', list), this.key('list-base', list)];
    return Number(await this.call(() => this.client.eval(APPEND_SCRIPT, { keys, arguments: [text] })));
  }

  async range<T>(list: string, from = 0, limit?: number): Promise<T[]> {
    checkRange(from, limit);
    if (limit === 0) return [];
    const keys = [this.key('list', list), this.key('list-base', list)];
    const items = (await this.call(() =>
      this.client.eval(RANGE_SCRIPT, { keys, arguments: [String(from), String(limit ?? -1)] }),
    )) as string[];
    return items.map((item) => parseItem<T>(item));
  }

  async trim(list: string, before: number): Promise<number> {
    if (!(Number.isInteger(before) && before >= 0)) {
      throw new RangeError(`trim 'before' must be a whole number >= 0, not ${before}`);
    }
    const keys = [this.key('list', list), this.key('list-base', list)];
    return Number(await this.call(() => this.client.eval(TRIM_SCRIPT, { keys, arguments: [String(before)] })));
  }

  async remove<T>(list: string, item: T): Promise<number> {
    const text = serialiseItem(item);
    return this.call(() => this.client.lRem(this.key('list', list), 0, text));
  }

  /**
   * Waits until TALLY_REDIS_WAIT_REPLICAS replicas hold what this connection wrote (WAIT), at most
   * TALLY_REDIS_WAIT_MS: Redis replicates after it answers, so a write only the master holds dies with it.
   * A replica that does not answer in time is logged (once, until they answer again), not an error: the
   * write is still on the master.
   */
  async durable(): Promise<void> {
    const { replicas, timeoutMs } = this.wait;
    if (replicas === 0) return;
    const held = await this.call(() => this.client.waitForReplicas(replicas, timeoutMs));
    if (held >= replicas) {
      if (!this.replicated)
        this.logger.info({ redis: this.location, replicas: held }, 'redis replicas hold writes again');
      this.replicated = true;
      return;
    }
    if (this.replicated) {
      this.logger.warn(
        { redis: this.location, replicas: held, wanted: replicas, timeoutMs },
        `only ${held} of ${replicas} Redis replicas confirmed a write within ${timeoutMs} ms: until they do, what is acknowledged is held by the master alone (TALLY_REDIS_WAIT_REPLICAS)`,
      );
    }
    this.replicated = false;
  }

  /** Deleted keys are gone from Redis's memory at once; its own persistence (RDB, AOF) is the server's to rewrite. */
  async reclaim(): Promise<void> {}

  /** The audit trail's stream on this connection (see audit-log.ts). */
  auditLog(): AuditLog {
    // In a Cluster the audit trail is one chain, so its three keys share one slot (one master) by design.
    const prefix = this.client.isCluster ? `{${this.prefix}}` : this.prefix;
    this.auditTrail ??= new RedisAuditLog(this.client, prefix, (operation) => this.call(operation));
    return this.auditTrail;
  }

  withLock<T>(name: string, task: () => Promise<T>, options?: LockOptions): Promise<T> {
    return this.locks.run(name, task, options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.locks.close(this.closedError());
    if (this.client.isReady) await this.client.close();
    else if (this.client.isOpen) this.client.destroy();
  }

  private lockBackend(): LockBackend {
    const lock = (name: string) => this.key('lock', name);
    const waiters = (name: string) => this.key('lock-waiters', name);
    return {
      tryAcquire: async (name, token, ttlMs) => {
        const keys = [lock(name), waiters(name)];
        const reply = await this.call(() =>
          this.client.eval(ACQUIRE_SCRIPT, { keys, arguments: [token, String(ttlMs), String(STALE_WAITER_MS)] }),
        );
        return reply === 1;
      },
      extend: async (name, token, ttlMs) => {
        const reply = await this.call(() =>
          this.client.eval(EXTEND_SCRIPT, { keys: [lock(name)], arguments: [token, String(ttlMs)] }),
        );
        return reply === 1;
      },
      release: async (name, token) => {
        await this.call(() => this.client.eval(RELEASE_SCRIPT, { keys: [lock(name)], arguments: [token] }));
      },
      abandon: async (name, token) => {
        await this.call(() => this.client.hDel(waiters(name), token));
      },
      owner: (name) => this.call(() => this.client.get(lock(name))),
    };
  }

  private get location(): string {
    return this.client.location;
  }

  /** A key of the store; in a Cluster the name is the hash tag, so a list and its base (a lock and its waiters) share a slot. */
  private key(kind: 'kv' | 'list' | 'list-base' | 'lock' | 'lock-waiters', name: string): string {
    return this.client.isCluster ? `${this.prefix}:${kind}:{${name}}` : `${this.prefix}:${kind}:${name}`;
  }

  /**
   * Runs one Redis call, turning a lost or closed connection into StoreUnavailableError. In a Cluster a call that
   * was not carried out because its master is down is sent again once the slots are learnt anew, until the
   * failover is over or CLUSTER_FAILOVER_WAIT_MS has passed.
   */
  private async call<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closed) throw this.closedError();
    try {
      return await this.failover.run(operation);
    } catch (error) {
      if (this.closed) throw this.closedError();
      if (isConnectionError(error)) {
        throw new StoreUnavailableError(this.location, `Redis does not answer (${reasonOf(error)})`, error);
      }
      throw error;
    }
  }

  private closedError(): StoreUnavailableError {
    return new StoreUnavailableError(this.location, 'the store was closed');
  }
}

async function withDeadline(timeoutMs: number, operation: () => Promise<void>): Promise<void> {
  const timer = new AbortController();
  const attempt = operation();
  attempt.catch(() => {}); // when the deadline wins, the late failure has no one to tell
  try {
    await Promise.race([
      attempt,
      sleep(timeoutMs, undefined, { signal: timer.signal }).then(() => {
        throw new Error(`no reply within ${timeoutMs} ms`);
      }),
    ]);
  } finally {
    timer.abort();
  }
}

/** Makes `text` match only itself in a SCAN MATCH pattern. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
