/**
 * The store's connection to Redis: one server (REDIS_URL, a node-redis client), the master a set of Sentinels names
 * (TALLY_REDIS_SENTINELS, node-redis's own Sentinel support, which follows a failover to the new master) or a Redis
 * Cluster (TALLY_REDIS_CLUSTER, node-redis's cluster client, which sends each command to the master of its key's
 * slot). All speak through one `send`, so the store and the audit log are written once for any; keyv's adapter is
 * given the node-redis object itself. Every command goes over one connection to its master (a pool of one), so WAIT
 * there counts the writes sent before it.
 */
import { ClientClosedError, ClientOfflineError, createClient, createCluster, createSentinel } from '@redis/client';
import type { RedisClusterSettings, RedisSentinelSettings } from '../base/config-types.js';

/** Where the store's Redis is: a URL, Sentinels and the name of the master they watch, or some nodes of a Cluster. */
export type RedisTarget = { url: string } | { sentinel: RedisSentinelSettings } | { cluster: RedisClusterSettings };

/** An audit stream entry as XRANGE returns it. */
export interface StreamEntry {
  id: string;
  message: Record<string, string | undefined>;
}

type Node =
  | { kind: 'single'; client: ReturnType<typeof singleClient> }
  | { kind: 'sentinel'; sentinel: ReturnType<typeof sentinelClient> }
  | { kind: 'cluster'; cluster: ReturnType<typeof clusterClient>; rootNodes: Array<{ host: string; port: number }> };

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
    if ('cluster' in target) {
      const { nodes } = target.cluster;
      return new RedisConnection(
        { kind: 'cluster', cluster: clusterClient(target.cluster, connectTimeoutMs, everReady), rootNodes: nodes },
        `redis-cluster://${nodes.map(({ host, port }) => `${host}:${port}`).join(',')}`,
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
    return this.object;
  }

  /** Whether keys are spread over the slots of a Cluster: keys a script uses together then share a hash tag. */
  get isCluster(): boolean {
    return this.node.kind === 'cluster';
  }

  get isOpen(): boolean {
    return this.object.isOpen;
  }

  get isReady(): boolean {
    // The cluster client has no such state of its own: it is ready once its slots are known.
    const { node } = this;
    return node.kind === 'cluster'
      ? node.cluster.isOpen
      : (node.kind === 'single' ? node.client : node.sentinel).isReady;
  }

  /** A connection error (it is being retried), and a connection (again) ready: a reconnect, or a new master. */
  watch(onError: (error: unknown) => void, onReady: (master?: string) => void): void {
    if (this.node.kind === 'single') {
      this.node.client.on('error', onError);
      this.node.client.on('ready', () => onReady());
      return;
    }
    if (this.node.kind === 'cluster') {
      this.node.cluster.on('error', onError);
      this.node.cluster.on('node-error', onError);
      this.node.cluster.on('node-ready', () => onReady());
      return;
    }
    this.node.sentinel.on('error', onError);
    this.node.sentinel.on('topology-change', (event: { type: string; node?: { host: string; port: number } }) => {
      if (event.type === 'MASTER_CHANGE' && event.node) onReady(`${event.node.host}:${event.node.port}`);
    });
  }

  async connect(): Promise<void> {
    await this.object.connect();
  }

  async close(): Promise<void> {
    await this.object.close();
  }

  destroy(): void {
    const { node } = this;
    if (node.kind === 'sentinel') void node.sentinel.destroy().catch(() => {});
    else if (node.kind === 'single') node.client.destroy();
    else node.cluster.destroy();
  }

  /** One command, on the master (in a Cluster, the master of `key`'s slot; any master without a key). */
  send(args: string[], key?: string): Promise<unknown> {
    if (this.node.kind === 'single') return this.node.client.sendCommand(args);
    if (this.node.kind === 'sentinel') return this.node.sentinel.sendCommand(false, args);
    return this.node.cluster.sendCommand(key, false, args);
  }

  /** Runs a script on the master of its keys, which must share one slot in a Cluster. */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown> {
    const { keys } = options;
    return this.send(['EVAL', script, String(keys.length), ...keys, ...options.arguments], keys[0]);
  }

  async get(key: string): Promise<string | undefined> {
    const value = await this.send(['GET', key], key);
    return value === null || value === undefined ? undefined : String(value);
  }

  /** Deletes keys that share one slot in a Cluster. */
  async del(keys: string[]): Promise<number> {
    return Number(await this.send(['DEL', ...keys], keys[0]));
  }

  async hDel(key: string, field: string): Promise<number> {
    return Number(await this.send(['HDEL', key, field], key));
  }

  async lRem(key: string, count: number, element: string): Promise<number> {
    return Number(await this.send(['LREM', key, String(count), element], key));
  }

  async xRange(key: string, start: string, end: string, count: number): Promise<StreamEntry[]> {
    return streamEntries(await this.send(['XRANGE', key, start, end, 'COUNT', String(count)], key));
  }

  /** The keys matching a SCAN pattern, a batch at a time (from every master of a Cluster). */
  async *scan(match: string, count: number): AsyncGenerator<string[]> {
    for (const send of await this.masters()) {
      let cursor = '0';
      do {
        const [next, keys] = (await send(['SCAN', cursor, 'MATCH', match, 'COUNT', String(count)])) as [
          string,
          string[],
        ];
        cursor = String(next);
        if (keys.length > 0) yield keys.map(String);
      } while (cursor !== '0');
    }
  }

  /**
   * How many replicas hold every write sent so far on this connection, waiting at most `timeoutMs` for `replicas`.
   * In a Cluster writes went to several masters: each is asked, and the fewest any of them has is the answer.
   */
  async waitForReplicas(replicas: number, timeoutMs: number): Promise<number> {
    const held = await Promise.all(
      (await this.masters()).map(async (send) => Number(await send(['WAIT', String(replicas), String(timeoutMs)]))),
    );
    return Math.min(...held);
  }

  async ping(): Promise<void> {
    await this.send(['PING']);
  }

  /**
   * Whether a call that failed this way was never carried out and may be sent again once a Cluster has failed over:
   * its master's connection was down (or replaced), or the cluster said it is reconfiguring. Outside a Cluster the
   * Sentinel client (or nothing) does the waiting: never.
   */
  retriesAfter(error: unknown): boolean {
    if (this.node.kind !== 'cluster') return false;
    if (error instanceof ClientOfflineError || error instanceof ClientClosedError) return true;
    return error instanceof Error && /^(CLUSTERDOWN|TRYAGAIN)\b/.test(error.message);
  }

  /** Asks a Cluster's nodes which master has each slot now (after a failover); a no-op elsewhere. */
  async relearnSlots(): Promise<void> {
    if (this.node.kind !== 'cluster') return;
    const { cluster, rootNodes } = this.node;
    const root = rootNodes[Math.floor(Math.random() * rootNodes.length)] as { host: string; port: number };
    // node-redis rediscovers only on MOVED, which a dead master never sends; it starts with the node it is given
    // and falls back to every root node.
    const start = { options: { socket: root } } as unknown as Parameters<typeof cluster._slots.rediscover>[0];
    await cluster._slots.rediscover(start);
  }

  /** The node-redis object behind this connection. */
  private get object() {
    const { node } = this;
    return node.kind === 'single' ? node.client : node.kind === 'sentinel' ? node.sentinel : node.cluster;
  }

  /** A way to send to each master: the one master, or every master of a Cluster over its own connection. */
  private async masters(): Promise<Array<(args: string[]) => Promise<unknown>>> {
    if (this.node.kind !== 'cluster') return [(args) => this.send(args)];
    const { cluster } = this.node;
    return Promise.all(
      cluster.masters.map(async (master) => {
        const client = await cluster.nodeClient(master);
        return (args: string[]) => client.sendCommand(args);
      }),
    );
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

function clusterClient(settings: RedisClusterSettings, connectTimeoutMs: number, everReady: () => boolean) {
  const { username, password } = settings;
  return createCluster({
    rootNodes: settings.nodes.map((socket) => ({ socket })),
    defaults: {
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
      disableOfflineQueue: true,
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
