/**
 * Where audit records are kept: append-only and chained by hash. Each record is stored as its JSON
 * text with `prev` (the hash of the record before it, or of the anchor) and `hash` =
 * sha256(prev + "\n" + text), so `verify` finds a record that was altered, inserted or removed.
 * Expired records are dropped from the head only; the anchor keeps the last dropped hash, so
 * dropping more than expired is found too.
 *
 * Two implementations share the store's connection: a table on the SQLite file
 * (`sqlite-audit-log.ts`), a stream on Redis (`redis-audit-log.ts`).
 */

/** One stored record: its position, its time in ms, the record text and its links. */
export interface StoredAuditRecord {
  /** Redis stream id, or the SQLite row number, as text. */
  id: string;
  atMs: number;
  text: string;
  prev: string;
  hash: string;
}

/** The result of checking the chain. */
export type ChainCheck =
  | { ok: true; records: number }
  | { ok: false; records: number; brokenAt: string; problem: string };

export interface AuditLog {
  /** Appends one record (`text` is its JSON) made at `atMs`; atomic across processes and replicas. */
  append(text: string, atMs: number): Promise<string>;
  /** Records in order, from after `afterId` (default the first), at most `limit` (default 1000). */
  read(options?: { afterId?: string; limit?: number }): Promise<StoredAuditRecord[]>;
  /** Drops records older than `beforeMs` from the head, at most `limit` of them; returns how many. */
  expire(beforeMs: number, limit: number): Promise<number>;
  /** Walks the whole chain from the anchor and names the first record that does not link. */
  verify(): Promise<ChainCheck>;
}

/** The genesis link: what the first record ever points back to. */
export const GENESIS = '0'.repeat(64);
