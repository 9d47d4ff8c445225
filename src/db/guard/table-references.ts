/**
 * What the parsers' walks find (mysql-table-references.ts, postgres-table-references.ts): the tables a statement
 * reads and the names its qualifiers may use; the parse's own table list read into them; where a parse stopped.
 */
import type { SqlProblem } from './sql-problem.js';

export interface TableReference {
  /** As the server reads it, without quotes; `null` when unqualified (the connection's own database or schema). */
  schema: string | null;
  table: string;
}

export interface TableReferences {
  tables: TableReference[];
  /** Every name a `name.column` qualifier may legitimately use here: tables, their aliases, CTEs, derived tables. */
  qualifiers: Set<string>;
}

/**
 * A parse's `tableList` (entries `select::schema::table`) added to `found`; a quoted name containing '::' makes an
 * entry ambiguous, which is the problem returned.
 */
export function addTableList(entries: unknown[], found: TableReferences): SqlProblem | undefined {
  let problem: SqlProblem | undefined;
  for (const entry of entries) {
    const parts = String(entry).split('::');
    if (parts.length !== 3) problem ??= { reason: `a name containing '::' (${String(entry)})` };
    const [, schema = '', table = ''] = parts;
    found.tables.push({ schema: schema === 'null' ? null : schema, table });
    found.qualifiers.add(table);
  }
  return problem;
}

/** Where in `sql` the parser stopped, for the refusal: ` near '…'` or ` at its end`. */
export function near(sql: string, error: unknown): string {
  const offset = (error as { location?: { start?: { offset?: number } } }).location?.start?.offset;
  if (typeof offset !== 'number') return '';
  const rest = sql.slice(offset, offset + 40);
  return rest ? ` near '${rest}'` : ' at its end';
}
