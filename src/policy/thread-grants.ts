/**
 * The grants a thread's turns have used: each table read, with the view each column was read through. The
 * thread's kernel holds what they loaded, so a later message runs only for a person whose view is at least as
 * wide (`missingGrants`); everyone else is told to start their own thread.
 */
import type { ColumnAccess, TableRead, UsedGrants } from '../ports/access.js';
import type { Access } from './access.js';

const WIDTH: Record<ColumnAccess, number> = { raw: 3, hash: 2, redact: 1, denied: 0 };

/** Adds `reads` to `used`, keeping the widest view each column was read through. */
export function recordReads(used: UsedGrants, reads: readonly TableRead[]): void {
  for (const read of reads) {
    const key = `${read.database}/${read.table}`;
    const columns = used[key] ?? {};
    used[key] = columns;
    for (const [column, access] of Object.entries(read.columns)) {
      const before = columns[column];
      if (before === undefined || WIDTH[access] > WIDTH[before]) columns[column] = access;
    }
  }
}

/** What `access` lacks of `used`, one short phrase each (`crm.customers`, `crm.customers.email unmasked`). */
export function missingGrants(used: UsedGrants | undefined, access: Access): string[] {
  const missing: string[] = [];
  for (const [key, columns] of Object.entries(used ?? {})) {
    const slash = key.indexOf('/');
    const [database, table] = [key.slice(0, slash), key.slice(slash + 1)];
    const granted = access.databases.get(database);
    if (!granted?.tableGrant(table)) {
      missing.push(`${database}.${table}`);
      continue;
    }
    for (const [column, was] of Object.entries(columns)) {
      const now = granted.column(table, column).access;
      if (WIDTH[now] < WIDTH[was]) missing.push(`${database}.${table}.${column}${now === 'denied' ? '' : ' unmasked'}`);
    }
  }
  return missing;
}
