/**
 * How big tally's stores are, read from outside the store port: Redis's memory and the share of one
 * key prefix, and the SQLite state file, both broken down by key family (`kv:session`, `list:log`,
 * `lock:thread`, `audit`, ...), so a family that keeps growing can be named. For the soak benchmark.
 */
import { statSync } from 'node:fs';
import { createClient } from '@redis/client';
import Database from 'better-sqlite3';

/** Keys (rows) and bytes of one key family. */
export interface FamilySize {
  keys: number;
  bytes: number;
}

export type Families = Record<string, FamilySize>;

export interface RedisReading {
  /** `used_memory` of INFO memory: the whole server, other users of it included. */
  usedMemoryBytes: number;
  /** DBSIZE: every key of the database. */
  dbSize: number;
  /** Keys under the prefix (SCAN). */
  prefixKeys: number;
  /** The sum of MEMORY USAGE (SAMPLES 0) over the prefix's keys: its share of used_memory. */
  prefixBytes: number;
  families: Families;
}

export interface SqliteReading {
  /** state.db plus state.db-wal. */
  fileBytes: number;
  dbBytes: number;
  walBytes: number;
  /** Pages on the free list: space the file holds but no row uses. */
  freeBytes: number;
  /** Row counts and the bytes of their values (keys and values, list items, audit records). */
  families: Families;
}

/** Stores with a kind of key in front (`<prefix>:kv:session:...`) are grouped by kind and first name segment. */
const KINDS = new Set(['kv', 'list', 'list-base', 'lock', 'lock-waiters']);

/** The family of a store name under a kind: `session:slack:T:C:1` in `kv` is `kv:session`. */
export function familyOf(kind: string, name: string): string {
  return `${kind}:${name.split(':', 1)[0] ?? ''}`;
}

function add(families: Families, family: string, bytes: number): void {
  const size = families[family] ?? { keys: 0, bytes: 0 };
  size.keys += 1;
  size.bytes += bytes;
  families[family] = size;
}

const newClient = (url: string) => createClient({ url, socket: { connectTimeout: 3_000, reconnectStrategy: false } });

/** The Redis server's memory and the share of one prefix. */
export class RedisProbe {
  private constructor(
    private readonly client: ReturnType<typeof newClient>,
    private readonly prefix: string,
  ) {}

  static async connect(url: string, prefix: string): Promise<RedisProbe> {
    const client = newClient(url);
    client.on('error', () => {});
    await client.connect();
    return new RedisProbe(client, prefix);
  }

  async read(): Promise<RedisReading> {
    const info = await this.client.info('memory');
    const usedMemoryBytes = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
    const dbSize = await this.client.dbSize();
    const families: Families = {};
    let prefixBytes = 0;
    const keys = await this.keys();
    const sizes = await Promise.all(keys.map((key) => this.client.memoryUsage(key, { SAMPLES: 0 })));
    keys.forEach((key, index) => {
      const bytes = Number(sizes[index] ?? 0);
      prefixBytes += bytes;
      const rest = key.slice(this.prefix.length + 1);
      const kind = rest.split(':', 1)[0] ?? '';
      add(families, KINDS.has(kind) ? familyOf(kind, rest.slice(kind.length + 1)) : kind, bytes);
    });
    return { usedMemoryBytes, dbSize, prefixKeys: keys.length, prefixBytes, families };
  }

  /** Deletes every key under the prefix; returns how many there were. */
  async deleteAll(): Promise<number> {
    const keys = await this.keys();
    if (keys.length > 0) await this.client.unlink(keys);
    return keys.length;
  }

  close(): void {
    this.client.destroy();
  }

  private async keys(): Promise<string[]> {
    const found: string[] = [];
    const match = `${this.prefix.replace(/[*?[\]\\]/g, '\\$&')}:*`;
    for await (const batch of this.client.scanIterator({ MATCH: match, COUNT: 1000 })) found.push(...batch);
    return found;
  }
}

const fileSize = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

/**
 * The SQLite state file of a running tally, read on a read-only connection of its own (WAL lets it
 * read beside the writer). Families as on Redis: `kv:<first segment>`, `list:<...>`, `list-base:<...>`,
 * `lock`, `audit`.
 */
export function readSqliteStore(path: string): SqliteReading {
  const dbBytes = fileSize(path);
  const walBytes = fileSize(`${path}-wal`);
  const database = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const families: Families = {};
    const rows = database.prepare<[], { key: string; bytes: number }>(
      'SELECT key, length(key) + length(value) AS bytes FROM keyv',
    );
    for (const row of rows.iterate()) add(families, familyOf('kv', row.key), row.bytes);
    const items = database.prepare<[], { list: string; bytes: number }>(
      'SELECT list, length(list) + length(item) + 8 AS bytes FROM list_items',
    );
    for (const row of items.iterate()) add(families, familyOf('list', row.list), row.bytes);
    const bases = database.prepare<[], { list: string }>('SELECT list FROM list_bases');
    for (const row of bases.iterate()) add(families, familyOf('list-base', row.list), row.list.length + 8);
    const locks = database.prepare<[], { name: string }>('SELECT name FROM locks');
    for (const row of locks.iterate()) add(families, familyOf('lock', row.name), row.name.length + 64);
    const audit = database
      .prepare<[], { rows: number; bytes: number | null }>(
        'SELECT count(*) AS rows, sum(length(record) + 160) AS bytes FROM audit',
      )
      .get();
    if (audit && audit.rows > 0) families.audit = { keys: audit.rows, bytes: audit.bytes ?? 0 };
    const pageSize = Number(database.pragma('page_size', { simple: true }));
    const freePages = Number(database.pragma('freelist_count', { simple: true }));
    return { fileBytes: dbBytes + walBytes, dbBytes, walBytes, freeBytes: pageSize * freePages, families };
  } finally {
    database.close();
  }
}

/** The process's memory; the heap after a full collection when node runs with --expose-gc. */
export function processMemory(): { rssBytes: number; heapUsedBytes: number; heapAfterGc: boolean } {
  const collect = (globalThis as { gc?: () => void }).gc;
  collect?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rssBytes: rss, heapUsedBytes: heapUsed, heapAfterGc: collect !== undefined };
}
