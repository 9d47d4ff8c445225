/** Types of sqlite-read-batch.js (plain JavaScript, run in the SQLite worker). */
import type { SqliteColumn } from './sqlite-batch.js';

export interface BatchSource {
  /** Raw rows. */
  iterator: Iterator<unknown[]>;
  width: number;
  /** Rows per batch. */
  rows: number;
  /** Per column: start the next batch as numbers (its last batch ended on one). */
  numeric: boolean[];
  /** Integers arrive as doubles (better-sqlite3's safeIntegers off), not BigInt. */
  doubles: boolean;
}

export interface Batch {
  message: { op: 'rows'; columns: SqliteColumn[]; count: number; done: boolean };
  transfer: ArrayBuffer[];
}

export function readBatch(source: BatchSource): Batch | null;
