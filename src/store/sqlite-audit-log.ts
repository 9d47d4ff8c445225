/**
 * The audit log on the store's SQLite file: table `audit (seq, at, record, prev, hash)` and the
 * one-row `audit_anchor (hash, dropped)` that keeps the last expired record's hash.
 *
 * An append reads the last hash and inserts inside one IMMEDIATE transaction: the write lock is taken
 * before the read, so a second connection (another process on the same file) cannot chain to the same
 * record. Expiry deletes from the head and moves the anchor in one transaction too.
 */
import { StoreUnavailableError } from '../base/errors.js';
import { type ChainStart, chainHash, VERIFY_BATCH_SIZE, verifyTrail } from './audit-chain.js';
import { type AuditLog, type ChainCheck, GENESIS, type StoredAuditRecord } from './audit-log.js';
// better-sqlite3's Database, named through the store: the SDK itself is imported only in src/store.
import type { KeyvSqliteOptions } from './keyv-sqlite.js';

type SqliteDatabase = KeyvSqliteOptions['database'];

interface AuditRow {
  seq: number;
  at: number;
  record: string;
  prev: string;
  hash: string;
}

const DEFAULT_READ_LIMIT = 1_000;

export class SqliteAuditLog implements AuditLog {
  private readonly database: SqliteDatabase;
  private readonly path: string;
  private readonly statements;
  private readonly appendTransaction;
  private readonly expireTransaction;
  private readonly startTransaction: () => ChainStart;

  /** `database` is the store's open connection (`state.db`); the caller closes it. */
  constructor(database: SqliteDatabase) {
    this.database = database;
    this.path = database.name;
    this.statements = this.call(() => {
      database.exec(`
        CREATE TABLE IF NOT EXISTS audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,
          record TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS audit_anchor (one INTEGER PRIMARY KEY CHECK (one = 1), hash TEXT NOT NULL,
          dropped INTEGER NOT NULL);
      `);
      return {
        lastHash: database.prepare<[], { hash: string }>('SELECT hash FROM audit ORDER BY seq DESC LIMIT 1'),
        anchorHash: database.prepare<[], { hash: string }>('SELECT hash FROM audit_anchor'),
        insert: database.prepare<[number, string, string, string], { seq: number }>(
          'INSERT INTO audit (at, record, prev, hash) VALUES (?, ?, ?, ?) RETURNING seq',
        ),
        read: database.prepare<[number, number], AuditRow>(
          'SELECT seq, at, record, prev, hash FROM audit WHERE seq > ? ORDER BY seq LIMIT ?',
        ),
        head: database.prepare<[number], Pick<AuditRow, 'seq' | 'at' | 'hash'>>(
          'SELECT seq, at, hash FROM audit ORDER BY seq LIMIT ?',
        ),
        dropThrough: database.prepare<[number]>('DELETE FROM audit WHERE seq <= ?'),
        moveAnchor: database.prepare<[string, number]>(
          `INSERT INTO audit_anchor (one, hash, dropped) VALUES (1, ?, ?)
           ON CONFLICT (one) DO UPDATE SET hash = excluded.hash, dropped = audit_anchor.dropped + excluded.dropped`,
        ),
        // Where a walk starts: the anchor, the last row, and the last number AUTOINCREMENT handed out.
        start: database.prepare<
          [],
          { hash: string | null; dropped: number | null; lastRow: number | null; lastSeq: number | null }
        >(
          `SELECT (SELECT hash FROM audit_anchor) AS hash, (SELECT dropped FROM audit_anchor) AS dropped,
             (SELECT max(seq) FROM audit) AS lastRow,
             (SELECT seq FROM sqlite_sequence WHERE name = 'audit') AS lastSeq`,
        ),
      };
    });
    const statements = this.statements;
    this.appendTransaction = database.transaction((text: string, atMs: number) => {
      const prev = statements.lastHash.get()?.hash ?? statements.anchorHash.get()?.hash ?? GENESIS;
      const row = statements.insert.get(atMs, text, prev, chainHash(prev, text));
      if (row === undefined) throw new Error('the audit insert returned no row');
      return String(row.seq);
    });
    this.expireTransaction = database.transaction((beforeMs: number, limit: number) => {
      const head = statements.head.all(limit);
      const stop = head.findIndex((row) => row.at >= beforeMs);
      const expired = stop === -1 ? head : head.slice(0, stop);
      const last = expired.at(-1);
      if (last === undefined) return 0;
      statements.dropThrough.run(last.seq);
      statements.moveAnchor.run(last.hash, expired.length);
      return expired.length;
    });
    // Deferred: a read transaction, so the anchor and the first records come from one snapshot.
    this.startTransaction = database.transaction(() => {
      const start = statements.start.get();
      const dropped = start?.dropped ?? 0;
      const lastSeq = start?.lastSeq ?? 0;
      const lastRow = start?.lastRow ?? null;
      // AUTOINCREMENT remembers the last number handed out even once its row is gone, so the walk
      // must reach it; unless every record expired, when there is no row left to meet.
      const tailKnown = lastSeq > 0 && (lastRow !== null || dropped === 0);
      return {
        anchorHash: start?.hash ?? GENESIS,
        dropped,
        first: statements.read.all(0, VERIFY_BATCH_SIZE).map(toRecord),
        ...(tailKnown ? { isLast: (record: StoredAuditRecord) => Number(record.id) >= lastSeq } : {}),
      };
    });
  }

  async append(text: string, atMs: number): Promise<string> {
    return this.call(() => this.appendTransaction.immediate(text, atMs));
  }

  async read(options: { afterId?: string; limit?: number } = {}): Promise<StoredAuditRecord[]> {
    const after = options.afterId === undefined ? 0 : parseSeq(options.afterId);
    const limit = checkLimit(options.limit ?? DEFAULT_READ_LIMIT);
    const rows = this.call(() => this.statements.read.all(after, limit));
    return rows.map(toRecord);
  }

  async expire(beforeMs: number, limit: number): Promise<number> {
    if (checkLimit(limit) === 0) return 0;
    return this.call(() => this.expireTransaction.immediate(beforeMs, limit));
  }

  verify(): Promise<ChainCheck> {
    return verifyTrail(
      async () => this.call(() => this.startTransaction()),
      (options) => this.read(options),
    );
  }

  /** Runs one operation on the file; SQLite failures (busy, disk full, read-only) become StoreUnavailableError. */
  private call<T>(operation: () => T): T {
    if (!this.database.open) throw new StoreUnavailableError(this.path, 'the store was closed');
    try {
      return operation();
    } catch (error) {
      if (error instanceof Error && error.name === 'SqliteError') {
        throw new StoreUnavailableError(this.path, error.message, error);
      }
      throw error;
    }
  }
}

function toRecord(row: AuditRow): StoredAuditRecord {
  return { id: String(row.seq), atMs: row.at, text: row.record, prev: row.prev, hash: row.hash };
}

function parseSeq(id: string): number {
  const seq = Number(id);
  if (!/^\d+$/.test(id) || !Number.isSafeInteger(seq)) throw new RangeError(`not an audit record id: '${id}'`);
  return seq;
}

function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a whole number ≥ 0, got ${limit}`);
  return limit;
}
