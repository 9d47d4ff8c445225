/**
 * The hash chain both audit logs keep, and its check. A record's hash is sha256(prev + "\n" + text);
 * its `prev` is the hash of the record before it, or the anchor's (the last expired record's hash, or
 * GENESIS while nothing was ever expired). The walk reads the trail in batches, so a long trail never
 * sits in memory at once.
 */
import { createHash } from 'node:crypto';
import { type AuditLog, type ChainCheck, GENESIS, type StoredAuditRecord } from './audit-log.js';

/** Records read per batch while verifying. */
export const VERIFY_BATCH_SIZE = 1_000;

/** How often `verifyTrail` walks again when an expiry moved the anchor under its feet. */
const VERIFY_ATTEMPTS = 3;

/** The hash of the record `text` that follows the record (or anchor) whose hash is `prev`. */
export function chainHash(prev: string, text: string): string {
  return createHash('sha256').update(`${prev}\n${text}`).digest('hex');
}

/** Where a walk starts, read in one go from the store just before it. */
export interface ChainStart {
  /** The anchor's hash, or GENESIS when nothing was ever expired. */
  anchorHash: string;
  /** How many records were ever expired; it only grows, so a change means an expiry ran meanwhile. */
  dropped: number;
  /** The first VERIFY_BATCH_SIZE records, read with the anchor so an expiry cannot come between them. */
  first: StoredAuditRecord[];
  /**
   * True for the record that was the last appended when the walk began; when given, the walk must
   * meet it (records appended meanwhile may follow it), so records removed from the end are found.
   */
  isLast?: (record: StoredAuditRecord) => boolean;
}

/**
 * Walks `batches` in order: the first record must follow the anchor, each one must hash to its own
 * `hash` and follow the one before it. Returns the first record that does not, and why.
 */
export async function verifyChain(
  anchorHash: string,
  batches: AsyncIterable<readonly StoredAuditRecord[]>,
  isLast?: (record: StoredAuditRecord) => boolean,
): Promise<ChainCheck> {
  let previous: StoredAuditRecord | undefined;
  let records = 0;
  let metLast = isLast === undefined;
  for await (const batch of batches) {
    for (const record of batch) {
      const expected = previous?.hash ?? anchorHash;
      if (record.prev !== expected) {
        return broken(records, record.id, `does not follow ${describe(previous, anchorHash)}`);
      }
      if (record.hash !== chainHash(record.prev, record.text)) {
        return broken(records, record.id, 'its content does not match its hash (altered)');
      }
      if (!metLast && isLast?.(record)) metLast = true;
      previous = record;
      records += 1;
    }
  }
  if (!metLast) {
    if (previous === undefined) {
      return {
        ok: false,
        records,
        brokenAt: 'start',
        problem: 'no record is left, yet not all of them expired (records were removed)',
      };
    }
    return broken(
      records,
      previous.id,
      'the trail ends here, before the last record appended (records after it were removed)',
    );
  }
  return { ok: true, records };
}

/**
 * Reads where the walk starts and walks the trail, all of it, in batches. When the walk fails and
 * the anchor moved meanwhile (an expiry overtook the walk), it walks again.
 */
export async function verifyTrail(start: () => Promise<ChainStart>, read: AuditLog['read']): Promise<ChainCheck> {
  let result: ChainCheck = { ok: true, records: 0 };
  for (let attempt = 1; attempt <= VERIFY_ATTEMPTS; attempt += 1) {
    const before = await start();
    result = await verifyChain(before.anchorHash, trailFrom(before.first, read), before.isLast);
    if (result.ok) return result;
    const after = await start();
    if (after.dropped === before.dropped) return result;
  }
  return result;
}

/** `first`, then the rest of the trail after it, VERIFY_BATCH_SIZE records at a time. */
async function* trailFrom(first: StoredAuditRecord[], read: AuditLog['read']): AsyncGenerator<StoredAuditRecord[]> {
  let batch = first;
  for (;;) {
    if (batch.length > 0) yield batch;
    const last = batch.at(-1);
    if (last === undefined || batch.length < VERIFY_BATCH_SIZE) return;
    batch = await read({ afterId: last.id, limit: VERIFY_BATCH_SIZE });
  }
}

function describe(previous: StoredAuditRecord | undefined, anchorHash: string): string {
  const why = '(a record before it was removed or altered)';
  if (previous !== undefined) return `record ${previous.id} ${why}`;
  if (anchorHash === GENESIS) return `the start of the trail ${why}`;
  return 'the last expired record (a record before it was removed without being expired, or altered)';
}

function broken(records: number, brokenAt: string, problem: string): ChainCheck {
  return { ok: false, records, brokenAt, problem: `record ${brokenAt}: ${problem}` };
}
