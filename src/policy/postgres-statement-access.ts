/**
 * What the statement check (`statement-access.ts`) adds on PostgreSQL.
 *
 * The guard lets any statement read the metadata of pg_catalog and information_schema and call the functions that
 * show definitions and comments, because without a policy an account's own columns are no secret. Under the policy
 * they would name columns a person may not read (and pg_stats would show their most common values), so all of it is
 * refused with the tools' hint, as information_schema and SHOW are on MySQL. Two more things are refused because
 * only PostgreSQL has them: current_query(), which returns the statement as run (the masking views, pseudonym key
 * and all), and a table's name used as a type (`NULL::customers`), whose columns are the table's, not its view's.
 *
 * Which tables of other schemas a statement reads comes from the guard's parse (`postgres-table-references.ts`)
 * and, as a back-up, from every `schema.name` whose qualifier that parse did not find as a table, alias or CTE: the
 * guard lets such a qualifier through only when it is a schema in scope.
 */
import { postgresName } from '../db/guard/postgres-scope.js';
import { postgresExplainTarget } from '../db/guard/postgres-statements.js';
import { readPostgresTableReferences } from '../db/guard/postgres-table-references.js';
import type { SqlToken } from '../db/guard/sql-tokens.js';

/** `pg_` functions that compute from their arguments or the session alone; the others read catalogs or the server. */
const VALUE_CALLS: ReadonlySet<string> = new Set([
  'pg_typeof',
  'pg_column_size',
  'pg_column_compression',
  'pg_size_pretty',
  'pg_size_bytes',
  'pg_input_is_valid',
  'pg_input_error_info',
  'pg_collation_for',
  'pg_client_encoding',
  'pg_encoding_to_char',
  'pg_backend_pid',
  'pg_sleep',
]);

/** Functions that return the comment of any object by its oid: of a denied column, an ungranted table. */
const COMMENT_CALLS: ReadonlySet<string> = new Set(['col_description', 'obj_description', 'shobj_description']);

/**
 * The metadata the name at `at` reads, as the refusal names it (`pg_attribute`, `col_description()`), if any: every
 * name starting with `pg_` that is not a call (pg_catalog, its relations, pg_toast), calls of the comment functions
 * and of `pg_` functions outside VALUE_CALLS.
 */
export function postgresMetadata(tokens: readonly SqlToken[], at: number): string | undefined {
  const name = postgresName(tokens[at]);
  if (name === undefined) return undefined;
  const call = tokens[at + 1]?.text === '(';
  if (call && (COMMENT_CALLS.has(name) || (name.startsWith('pg_') && !VALUE_CALLS.has(name)))) return `${name}()`;
  if (!call && name.startsWith('pg_')) return name;
  return undefined;
}

/** current_query(), or a table of the database's own schema used as a type, if the statement holds either. */
export function postgresEchoProblem(tokens: readonly SqlToken[], tables: readonly string[]): string | undefined {
  const own = new Set(tables);
  for (const [at, token] of tokens.entries()) {
    const name = postgresName(token);
    if (name === 'current_query' && tokens[at + 1]?.text === '(') {
      return 'current_query() is not available under the access policy: it returns the statement as tally rewrote it to mask columns.';
    }
    if (name === undefined || !own.has(name) || !usedAsType(tokens, at)) continue;
    return `${name} as a type is not available under the access policy: a row of that type has every column of the table, not just those you may read. Select the columns instead.`;
  }
  return undefined;
}

/** The name at `at` (possibly `schema.name`) follows `::` or the AS of a CAST(… AS name). */
function usedAsType(tokens: readonly SqlToken[], at: number): boolean {
  const start = tokens[at - 1]?.text === '.' ? at - 2 : at;
  if (tokens[start - 1]?.text === ':' && tokens[start - 2]?.text === ':') return true;
  if (tokens[start - 1]?.keyword !== 'AS') return false;
  let depth = 0;
  for (let back = start - 2; back >= 0; back -= 1) {
    const text = tokens[back]?.text;
    if (text === ')') depth += 1;
    if (text === '(' && depth-- === 0) return tokens[back - 1]?.keyword === 'CAST';
  }
  return false;
}

export interface OtherTable {
  schema: string;
  table: string;
}

/** Every table of a schema other than `schema` that the statement reads, or why it cannot tell. */
export function postgresOtherTables(tokens: readonly SqlToken[], schema: string): OtherTable[] | string {
  if (!tokens.some((token) => token.text === '.')) return [];
  const start = tokens[0]?.keyword === 'EXPLAIN' ? postgresExplainTarget(tokens) : 0;
  if (typeof start !== 'number') return `the statement could not be read: ${start.reason}.`;
  const query = tokens.slice(start);
  const references = readPostgresTableReferences(query);
  if ('reason' in references) return `the statement could not be read: ${references.reason}.`;
  const others = new Map<string, OtherTable>();
  const add = (other: string, table: string) => others.set(`${other}.${table}`, { schema: other, table });
  for (const reference of references.tables) {
    if (reference.schema !== null && reference.schema !== schema) add(reference.schema, reference.table);
  }
  for (const [at, token] of query.entries()) {
    const qualifier = postgresName(token);
    const name = postgresName(query[at + 2]);
    if (qualifier === undefined || name === undefined || query[at + 1]?.text !== '.') continue;
    // A number (`1.5`), a function of the schema (the guard's to judge), the own schema, or a table or alias.
    if (/^[0-9]/.test(token.text) || query[at + 3]?.text === '(') continue;
    if (qualifier === schema || references.qualifiers.has(qualifier)) continue;
    add(qualifier, name);
  }
  return [...others.values()];
}
