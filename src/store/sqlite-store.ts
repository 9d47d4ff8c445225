/**
 * The embedded Store: keyv on a local SQLite file (`<TALLY_HOME>/state.db`, WAL mode), created on
 * first use. It serves one process by design; several replicas share Redis instead (REDIS_URL).
 *
 * Lists are rows `(list, seq, item)` where `seq` is the item's permanent position; an append takes
 * the list's length inside one immediate transaction, so appends stay atomic even from a second
 * process. Trimming deletes rows and records in `list_bases (list, base)` how far the list was
 * trimmed, so a list trimmed empty goes on numbering where it stopped. Locks are an in-process FIFO per
 * name plus a lock row `(name, owner, expires)`: a second process on the same file waits for the
 * row like any other holder and, past `waitMs`, gets a LockTimeoutError that names the process
 * holding it, never silent interleaving. Rows left by dead processes on this host are cleared.
 *
 * better-sqlite3 is synchronous; every statement here touches one row or one short index range.
 */
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import Keyv from 'keyv';
import { StoreUnavailableError } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import type { LockOptions, Store } from '../ports/store.js';
import type { AuditLog } from './audit-log.js';
import { KeyvSqlite } from './keyv-sqlite.js';
import { describeOwner, type LockBackend, LockRunner } from './lock-runner.js';
import { SqliteAuditLog } from './sqlite-audit-log.js';
import { checkRange, checkTtl, parseItem, serialiseItem } from './store-values.js';

const BUSY_TIMEOUT_MS = 5_000;

export class SqliteStore implements Store {
  private readonly keyv: Keyv;
  private readonly locks: LockRunner;
  private readonly statements;
  private readonly appendTransaction: Database.Transaction<(list: string, item: string) => number>;
  private readonly trimTransaction: Database.Transaction<(list: string, before: number) => number>;
  private readonly deleteListTransaction: Database.Transaction<(list: string) => void>;
  private closed = false;
  private auditTrail: SqliteAuditLog | undefined;

  private constructor(
    private readonly database: Database.Database,
    private readonly path: string,
    logger: Logger,
  ) {
    database.exec(`
      CREATE TABLE IF NOT EXISTS list_items (list TEXT NOT NULL, seq INTEGER NOT NULL, item TEXT NOT NULL,
        PRIMARY KEY (list, seq)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS list_bases (list TEXT PRIMARY KEY, base INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS locks (name TEXT PRIMARY KEY, owner TEXT NOT NULL, expires INTEGER NOT NULL);
    `);
    this.keyv = new Keyv(new KeyvSqlite({ database }), {
      useKeyPrefix: false,
      throwOnErrors: true,
      serialize: (data) => JSON.stringify(data),
      deserialize: (text) => JSON.parse(text),
    });
    this.statements = {
      // One past the last position ever used: the last item, or the base when trimmed empty.
      length: database.prepare<[string, string], { length: number }>(
        `SELECT max(coalesce((SELECT max(seq) + 1 FROM list_items WHERE list = ?), 0),
                    coalesce((SELECT base FROM list_bases WHERE list = ?), 0)) AS length`,
      ),
      append: database.prepare<[string, number, string]>('INSERT INTO list_items (list, seq, item) VALUES (?, ?, ?)'),
      range: database.prepare<[string, number, number], { item: string }>(
        'SELECT item FROM list_items WHERE list = ? AND seq >= ? ORDER BY seq LIMIT ?',
      ),
      dropBefore: database.prepare<[string, number]>('DELETE FROM list_items WHERE list = ? AND seq < ?'),
      raiseBase: database.prepare<[string, number]>(
        `INSERT INTO list_bases (list, base) VALUES (?, ?)
         ON CONFLICT (list) DO UPDATE SET base = max(base, excluded.base)`,
      ),
      remove: database.prepare<[string, string]>('DELETE FROM list_items WHERE list = ? AND item = ?'),
      deleteItems: database.prepare<[string]>('DELETE FROM list_items WHERE list = ?'),
      deleteBase: database.prepare<[string]>('DELETE FROM list_bases WHERE list = ?'),
      // Names with a prefix form one run in key order: start there and stop at the first that lacks it.
      valueNames: database.prepare<[string, number], { name: string }>(
        'SELECT key AS name FROM keyv WHERE key >= ? AND (expires IS NULL OR expires > ?) ORDER BY key',
      ),
      listNames: database.prepare<[string], { name: string }>(
        'SELECT DISTINCT list AS name FROM list_items WHERE list >= ? ORDER BY list',
      ),
      acquire: database.prepare<[string, string, number, number]>(
        `INSERT INTO locks (name, owner, expires) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires = excluded.expires WHERE locks.expires <= ?`,
      ),
      extend: database.prepare<[number, string, string]>('UPDATE locks SET expires = ? WHERE name = ? AND owner = ?'),
      release: database.prepare<[string, string]>('DELETE FROM locks WHERE name = ? AND owner = ?'),
      owner: database.prepare<[string, number], { owner: string }>(
        'SELECT owner FROM locks WHERE name = ? AND expires > ?',
      ),
    };
    // IMMEDIATE takes the write lock before reading the length, so two processes cannot read the same one.
    this.appendTransaction = database.transaction((list: string, item: string) => {
      const seq = this.listLength(list);
      this.statements.append.run(list, seq, item);
      return seq + 1;
    });
    this.trimTransaction = database.transaction((list: string, before: number) => {
      const base = Math.min(before, this.listLength(list));
      const dropped = this.statements.dropBefore.run(list, before).changes;
      if (base > 0) this.statements.raiseBase.run(list, base);
      return dropped;
    });
    this.deleteListTransaction = database.transaction((list: string) => {
      this.statements.deleteItems.run(list);
      this.statements.deleteBase.run(list);
    });
    this.locks = new LockRunner(this.lockBackend(), logger, describeSqliteOwner);
  }

  /** Opens (creating when missing) the file and its tables. */
  static open(path: string, logger: Logger): SqliteStore {
    let database: Database.Database | undefined;
    try {
      mkdirSync(dirname(path), { recursive: true });
      database = new Database(path);
      database.pragma('journal_mode = WAL');
      database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      database.pragma('synchronous = NORMAL');
      // Deleted rows are overwritten, not just unlinked: deletion on request must not leave them in the file.
      database.pragma('secure_delete = ON');
      return new SqliteStore(database, path, logger);
    } catch (error) {
      database?.close();
      throw new StoreUnavailableError(path, error instanceof Error ? error.message : String(error), error);
    }
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
      await this.keyv.delete(name);
      this.deleteListTransaction.immediate(name);
    });
  }

  keys(prefix: string): Promise<string[]> {
    return this.call(() => {
      const names = new Set<string>();
      for (const row of this.statements.valueNames.iterate(prefix, Date.now())) {
        if (!row.name.startsWith(prefix)) break;
        names.add(row.name);
      }
      for (const row of this.statements.listNames.iterate(prefix)) {
        if (!row.name.startsWith(prefix)) break;
        names.add(row.name);
      }
      return [...names];
    });
  }

  async append<T>(list: string, item: T): Promise<number> {
    const text = serialiseItem(item);
    return this.call(() => this.appendTransaction.immediate(list, text));
  }

  async range<T>(list: string, from = 0, limit?: number): Promise<T[]> {
    checkRange(from, limit);
    const rows = await this.call(() => this.statements.range.all(list, from, limit ?? -1));
    return rows.map((row) => parseItem<T>(row.item));
  }

  async trim(list: string, before: number): Promise<number> {
    if (!(Number.isInteger(before) && before >= 0)) {
      throw new RangeError(`trim 'before' must be a whole number >= 0, not ${before}`);
    }
    return this.call(() => this.trimTransaction.immediate(list, before));
  }

  async remove<T>(list: string, item: T): Promise<number> {
    const text = serialiseItem(item);
    return this.call(() => this.statements.remove.run(list, text).changes);
  }

  /** Each write is committed to the file before it returns: nothing to wait for. */
  async durable(): Promise<void> {}

  /**
   * Makes deleted content unrecoverable from the files: the write-ahead log, which still holds old
   * versions of changed pages, is written back and truncated (deleted rows are zeroed as they go).
   */
  async reclaim(): Promise<void> {
    await this.call(() => this.database.pragma('wal_checkpoint(TRUNCATE)'));
  }

  /** The audit trail's table in this file (see audit-log.ts). */
  auditLog(): AuditLog {
    this.auditTrail ??= new SqliteAuditLog(this.database);
    return this.auditTrail;
  }

  withLock<T>(name: string, task: () => Promise<T>, options?: LockOptions): Promise<T> {
    return this.locks.run(name, task, options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.locks.close(this.closedError());
    this.database.close();
  }

  private listLength(list: string): number {
    return this.statements.length.get(list, list)?.length ?? 0;
  }

  private lockBackend(): LockBackend {
    const { statements } = this;
    return {
      tryAcquire: (name, token, ttlMs) =>
        this.call(() => {
          const now = Date.now();
          if (statements.acquire.run(name, token, now + ttlMs, now).changes === 1) return true;
          const owner = statements.owner.get(name, now)?.owner;
          // A process on this host that died holding the lock: its row would otherwise block until it expires.
          if (owner === undefined || !ownerIsDeadLocally(owner)) return false;
          statements.release.run(name, owner);
          return statements.acquire.run(name, token, now + ttlMs, now).changes === 1;
        }),
      extend: (name, token, ttlMs) =>
        this.call(() => statements.extend.run(Date.now() + ttlMs, name, token).changes === 1),
      release: async (name, token) => {
        await this.call(() => statements.release.run(name, token));
      },
      abandon: async () => {},
      owner: (name) => this.call(() => statements.owner.get(name, Date.now())?.owner),
    };
  }

  /** Runs one operation on the open file; SQLite failures (busy, disk full, read-only) become StoreUnavailableError. */
  private async call<T>(operation: () => T | Promise<T>): Promise<T> {
    if (this.closed) throw this.closedError();
    try {
      return await operation();
    } catch (error) {
      if (error instanceof Database.SqliteError) throw new StoreUnavailableError(this.path, error.message, error);
      throw error;
    }
  }

  private closedError(): StoreUnavailableError {
    return new StoreUnavailableError(this.path, 'the store was closed');
  }
}

function describeSqliteOwner(token: string): string {
  const described = describeOwner(token);
  if (described.startsWith('process ')) {
    return `${described} (the SQLite store serves one process; set REDIS_URL to run several)`;
  }
  return described;
}

function ownerIsDeadLocally(token: string): boolean {
  const [host, pidText] = token.split('/');
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
