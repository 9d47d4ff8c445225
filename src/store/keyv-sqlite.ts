/**
 * A keyv storage adapter over better-sqlite3 (@keyv/sqlite would need the separate native sqlite3
 * package). One table, `keyv (key TEXT PRIMARY KEY, value TEXT, expires INTEGER)`, with keyv's TTL
 * semantics: `set` takes a TTL in ms (none when absent or 0) and an expired entry reads as missing.
 */
import { EventEmitter } from 'node:events';
import type BetterSqlite3 from 'better-sqlite3';
import type { KeyvStoreAdapter } from 'keyv';

/** Expired rows are also swept once every this many writes, so a busy store does not grow without end. */
const SWEEP_EVERY_WRITES = 256;

export interface KeyvSqliteOptions {
  /** An open database; the caller owns it and closes it. */
  database: BetterSqlite3.Database;
  /** Table name, default `keyv`. */
  table?: string;
}

export class KeyvSqlite extends EventEmitter implements KeyvStoreAdapter {
  readonly opts: { dialect: 'sqlite'; table: string };
  /** Set by keyv; `clear()` then removes only keys that start with `<namespace>:`. */
  namespace?: string | undefined;
  private readonly statements;
  private writes = 0;

  constructor(options: KeyvSqliteOptions) {
    super();
    const table = options.table ?? 'keyv';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new TypeError(`invalid table name: ${table}`);
    this.opts = { dialect: 'sqlite', table };
    const database = options.database;
    database.exec(`CREATE TABLE IF NOT EXISTS ${table} (key TEXT PRIMARY KEY, value TEXT, expires INTEGER)`);
    this.statements = {
      get: database.prepare<[string], { value: string; expires: number | null }>(
        `SELECT value, expires FROM ${table} WHERE key = ?`,
      ),
      set: database.prepare<[string, string, number | null]>(
        `INSERT INTO ${table} (key, value, expires) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires`,
      ),
      delete: database.prepare<[string]>(`DELETE FROM ${table} WHERE key = ?`),
      deleteExpired: database.prepare<[string, number]>(`DELETE FROM ${table} WHERE key = ? AND expires <= ?`),
      sweep: database.prepare<[number]>(`DELETE FROM ${table} WHERE expires <= ?`),
      clear: database.prepare(`DELETE FROM ${table}`),
      clearNamespace: database.prepare<[string, string]>(`DELETE FROM ${table} WHERE substr(key, 1, length(?)) = ?`),
    };
    this.statements.sweep.run(Date.now());
  }

  async get<Value>(key: string): Promise<Value | undefined> {
    const row = this.statements.get.get(key);
    if (row === undefined) return undefined;
    if (row.expires !== null && row.expires <= Date.now()) {
      this.statements.deleteExpired.run(key, Date.now());
      return undefined;
    }
    return row.value as Value;
  }

  async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    if (typeof value !== 'string') throw new TypeError('KeyvSqlite stores serialised strings; keep keyv serialize on');
    const expires = typeof ttl === 'number' && ttl > 0 ? Date.now() + ttl : null;
    this.statements.set.run(key, value, expires);
    if (++this.writes % SWEEP_EVERY_WRITES === 0) this.statements.sweep.run(Date.now());
    return true;
  }

  async delete(key: string): Promise<boolean> {
    return this.statements.delete.run(key).changes > 0;
  }

  async clear(): Promise<void> {
    const prefix = `${this.namespace}:`;
    if (this.namespace) this.statements.clearNamespace.run(prefix, prefix);
    else this.statements.clear.run();
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }
}
