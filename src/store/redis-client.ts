/**
 * The store's connection to Redis: one server (REDIS_URL, a node-redis client) or the master a set of Sentinels
 * names (TALLY_REDIS_SENTINELS, node-redis's own Sentinel support, which follows a failover to the new master). Both
 * speak through one `send`, so the store and the audit log are written once for either; keyv's adapter is given the
 * node-redis object itself. Every command goes over one connection to the master (a pool of one), so WAIT counts
 * the writes sent before it.
 */
import { createClient, createSentinel } from '@redis/client';
import type { RedisSentinelSettings } from '../base/config-types.js';

/** Where the store's Redis is: a URL, or Sentinels and the name of the master they watch. */
export type RedisTarget = { url: string } | { sentinel: RedisSentinelSettings };

/** An audit stream entry as XRANGE returns it. */
export interface StreamEntry {
  id: string;
  message: Record<string, string | undefined>;
}

type Node =
  | { kind: 'single'; client: ReturnType<typeof singleClient> }
  | { kind: 'sentinel'; sentinel: ReturnType<typeof sentinelClient> };

export class RedisConnection {
  private constructor(
    private readonly node: Node,
    /** Where it connects, without a password, for messages and logs. */
    readonly location: string,
  ) {}

  /**
   * Before its first connection it gives up at once (the caller hears why); after, it retries for ever, and calls
   * fail fast meanwhile (no offline queue).
   */
  static open(target: RedisTarget, connectTimeoutMs: number, everReady: () => boolean): RedisConnection {
    if ('url' in target) {
      return new RedisConnection(
        { kind: 'single', client: singleClient(target.url, connectTimeoutMs, everReady) },
        redactUrl(target.url),
      );
    }
    const { sentinels, masterName } = target.sentinel;
    return new RedisConnection(
      { kind: 'sentinel', sentinel: sentinelClient(target.sentinel, connectTimeoutMs, everReady) },
      `redis-sentinel://${sentinels.map(({ host, port }) => `${host}:${port}`).join(',')}/${masterName}`,
    );
  }

  /** The node-redis object, for keyv's adapter (which takes a client or a Sentinel alike). */
  get native(): unknown {
    return this.node.kind === 'single' ? this.node.client : this.node.sentinel;
  }

  get isOpen(): boolean {
    return this.node.kind === 'single' ? this.node.client.isOpen : this.node.sentinel.isOpen;
  }

  get isReady(): boolean {
    return this.node.kind === 'single' ? this.node.client.isReady : this.node.sentinel.isReady;
  }

  /** A connection error (it is being retried), and a connection (again) ready: a reconnect, or a new master. */
  watch(onError: (error: unknown) => void, onReady: (where?: string) => void): void {
    if (this.node.kind === 'single') {
      this.node.client.on('error', onError);
      this.node.client.on('ready', () => onReady());
      return;
    }
    this.node.sentinel.on('error', onError);
    this.node.sentinel.on('topology-change', (event: { type: string; node?: { host: string; port: number } }) => {
      if (event.type === 'MASTER_CHANGE' && event.node) onReady(`${event.node.host}:${event.node.port}`);
    });
  }

  async connect(): Promise<void> {
    if (this.node.kind === 'single') await this.node.client.connect();
    else await this.node.sentinel.connect();
  }

  async close(): Promise<void> {
    if (this.node.kind === 'single') await this.node.client.close();
    else await this.node.sentinel.close();
  }

  destroy(): void {
    if (this.node.kind === 'single') this.node.client.destroy();
    else void this.node.sentinel.destroy().catch(() => {});
  }

  /** One command, on the master. */
  send(args: string[]): Promise<unknown> {
    return this.node.kind === 'single'
      ? this.node.client.sendCommand(args)
      : this.node.sentinel.sendCommand(false, args);
  }

  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown> {
    return this.send(['EVAL', script, String(options.keys.length), ...options.keys, ...options.arguments]);
  }

  async get(key: string): Promise<string | undefined> {
    const value = await this.send(['GET', key]);
    return value === null || value === undefined ? undefined : String(value);
  }

  async del(keys: string[]): Promise<number> {
    return Number(await this.send(['DEL', ...keys]));
  }

  async hDel(key: string, field: string): Promise<number> {
    return Number(await this.send(['HDEL', key, field]));
  }

  async lRem(key: string, count: number, element: string): Promise<number> {
    return Number(await this.send(['LREM', key, String(count), element]));
  }

  async xRange(key: string, start: string, end: string, count: number): Promise<StreamEntry[]> {
    return streamEntries(await this.send(['XRANGE', key, start, end, 'COUNT', String(count)]));
  }

  /** The keys matching a SCAN pattern, a batch at a time. */
  async *scan(match: string, count: number): AsyncGenerator<string[]> {
    let cursor = '0';
    do {
      const [next, keys] = (await this.send(['SCAN', cursor, 'MATCH', match, 'COUNT', String(count)])) as [
        string,
        string[],
      ];
      cursor = String(next);
      if (keys.length > 0) yield keys.map(String);
    } while (cursor !== '0');
  }

  /** How many replicas hold every write sent so far on this connection, waiting at most `timeoutMs` for `replicas`. */
  async waitForReplicas(replicas: number, timeoutMs: number): Promise<number> {
    return Number(await this.send(['WAIT', String(replicas), String(timeoutMs)]));
  }

  async ping(): Promise<void> {
    await this.send(['PING']);
  }
}

/** XRANGE's reply (also from a script), `[[id, [field, value, …]], …]`, as entries. */
export function streamEntries(reply: unknown): StreamEntry[] {
  return ((reply ?? []) as Array<[string, string[]]>).map(([id, fields]) => {
    const message: Record<string, string> = {};
    for (let at = 0; at + 1 < fields.length; at += 2) message[String(fields[at])] = String(fields[at + 1]);
    return { id: String(id), message };
  });
}

function singleClient(url: string, connectTimeoutMs: number, everReady: () => boolean) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: connectTimeoutMs, reconnectStrategy: reconnect(everReady) },
  });
}

function sentinelClient(settings: RedisSentinelSettings, connectTimeoutMs: number, everReady: () => boolean) {
  const { username, password, sentinelPassword } = settings;
  return createSentinel({
    name: settings.masterName,
    sentinelRootNodes: settings.sentinels,
    masterPoolSize: 1,
    nodeClientOptions: {
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
      disableOfflineQueue: true,
      socket: { connectTimeout: connectTimeoutMs, reconnectStrategy: reconnect(everReady) },
    },
    sentinelClientOptions: {
      ...(sentinelPassword ? { password: sentinelPassword } : {}),
      socket: { connectTimeout: connectTimeoutMs, reconnectStrategy: reconnect(everReady) },
    },
  });
}

/** Gives up before the first connection (with the cause), then retries for ever with a capped backoff. */
const reconnect = (everReady: () => boolean) => (retries: number, cause: Error) =>
  everReady() ? Math.min(2_000, 50 * 2 ** retries) + Math.random() * 100 : cause;

/** The URL with its password hidden, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable REDIS_URL)';
  }
}
