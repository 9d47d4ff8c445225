/**
 * Everything tally keeps, read behind its back: every row of every table of the SQLite file, every
 * key under a Redis prefix (with its value, whatever its type), every file under a folder. Tests of
 * deletion look here, never through the store they test.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RedisTestSpace } from './redis.js';

/** One stored thing: the store name it is kept under (the Redis key without prefix and kind) and all its text. */
export interface StoredEntry {
  name: string;
  text: string;
}

/**
 * Every row of every table of a SQLite file, read on a connection of its own that takes part in the WAL
 * index like the service's own (query_only keeps it from writing): a read-only connection, which may
 * not, once read "disk I/O error" while the running service wrote (CI, 2026-11-28). That error came once
 * more on a loaded machine (2026-11-30), read right after a forget truncated the WAL in another process:
 * reading behind the store's back, a read that meets it is made again, a few times, on a new connection.
 */
export function sqliteEntries(path: string, attempts = 5): StoredEntry[] {
  try {
    return readSqlite(path);
  } catch (error) {
    if (attempts <= 1 || (error as { code?: string }).code?.startsWith('SQLITE_IOERR') !== true) throw error;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    return sqliteEntries(path, attempts - 1);
  }
}

function readSqlite(path: string): StoredEntry[] {
  const database = new Database(path, { fileMustExist: true, timeout: 5_000 });
  try {
    database.pragma('query_only = ON');
    const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    return tables.flatMap((table) =>
      (database.prepare(`SELECT * FROM "${table}"`).all() as Array<Record<string, unknown>>).map((row) => ({
        name: String(row.key ?? row.list ?? row.name ?? table),
        text: JSON.stringify(row),
      })),
    );
  } finally {
    database.close();
  }
}

/** Every key under the space's prefix with its whole value, whatever its type (streams included). */
export async function redisEntries(redis: RedisTestSpace): Promise<StoredEntry[]> {
  const { client } = redis;
  const entries: StoredEntry[] = [];
  for (const key of await redis.keys()) {
    const type = await client.type(key);
    const value =
      type === 'string'
        ? await client.get(key)
        : type === 'list'
          ? await client.lRange(key, 0, -1)
          : type === 'hash'
            ? await client.hGetAll(key)
            : type === 'stream'
              ? await client.xRange(key, '-', '+')
              : type === 'set'
                ? await client.sMembers(key)
                : type === 'zset'
                  ? await client.zRange(key, 0, -1)
                  : `(a ${type})`;
    const name = key.slice(redis.keyPrefix.length + 1).replace(/^(kv|list|list-base|lock|lock-waiters):/, '');
    entries.push({ name, text: `${key} ${JSON.stringify(value)}` });
  }
  return entries;
}

/** The entries whose name or text holds `needle` (ignoring case). */
export function mentioning(entries: StoredEntry[], needle: string): StoredEntry[] {
  const wanted = needle.toLowerCase();
  return entries.filter((entry) => `${entry.name}\n${entry.text}`.toLowerCase().includes(wanted));
}

/**
 * Files under `folder` (relative paths, sorted) whose name or content holds `needle` (ignoring case).
 * Files larger than `maxBytes` are judged by their name only (a workspace's sparse disk image: its
 * contents are read through its mount).
 */
export async function filesMentioning(
  folder: string,
  needle: string,
  options: { skip?: (path: string) => boolean; maxBytes?: number } = {},
): Promise<string[]> {
  const wanted = needle.toLowerCase();
  const found: string[] = [];
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const relative = path.slice(folder.length + 1);
    if (options.skip?.(relative)) continue;
    if (relative.toLowerCase().includes(wanted)) {
      found.push(relative);
      continue;
    }
    const size = (await stat(path).catch(() => undefined))?.size ?? 0;
    if (size > (options.maxBytes ?? 16 * 1024 * 1024)) continue;
    const content = await readFile(path).catch(() => Buffer.alloc(0));
    if (content.toString('latin1').toLowerCase().includes(wanted)) found.push(relative);
  }
  return found.sort();
}
