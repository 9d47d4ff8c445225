/**
 * What is derived from data keeps its sources' grants (DESIGN §9). A playbook saved from a thread, a verified query
 * learned from an accepted section, a knowledge piece written from one: their text may quote what the thread read
 * without naming a table (a Python cell's printed rows), so a filter on table names cannot tell. Each records the
 * thread's grants instead (`Derivation`), and is offered only to a reader who holds all of them.
 */
import { z } from 'zod';
import type { ColumnAccess, Derivation, Reader, UsedGrants } from '../ports/access.js';

/**
 * Whether something is offered to `reader`. Not derived (a shipped playbook, the organisation's own knowledge
 * files): yes. No reader (no access policy): yes. Derived with grants not known: no one, under a policy.
 */
export function offeredTo(derivation: Derivation | undefined, reader: Reader | undefined): boolean {
  if (!derivation || !reader) return true;
  return derivation.grantsUsed !== undefined && reader.mayRead(derivation.grantsUsed);
}

const WIDTH: Record<ColumnAccess, number> = { raw: 3, hash: 2, redact: 1, denied: 0 };

/**
 * `into` with `more` added, keeping the widest view of each column: what a thread holds once something derived
 * from another thread reached its prompts, or once its own turns read more.
 */
export function widenGrants(into: UsedGrants | undefined, more: UsedGrants): UsedGrants {
  const widened: UsedGrants = structuredClone(into ?? {});
  for (const [table, columns] of Object.entries(more)) {
    const known = widened[table] ?? {};
    widened[table] = known;
    for (const [column, access] of Object.entries(columns)) {
      const before = known[column];
      if (before === undefined || WIDTH[access] > WIDTH[before]) known[column] = access;
    }
  }
  return widened;
}

/** The tables of `used` as `database.table`, for records that name what was read (never values). */
export function grantedTables(used: UsedGrants | undefined): string[] {
  return Object.keys(used ?? {}).map((key) => key.replace('/', '.'));
}

/** UsedGrants as files keep them (a playbook's `grants:` JSON, a knowledge file's `grants:` mapping). */
export const usedGrantsSchema = z.record(
  z.string().regex(/^[^/]+\/.+$/, 'a key is database/table'),
  z.record(z.string().min(1), z.enum(['raw', 'hash', 'redact', 'denied'])),
);
