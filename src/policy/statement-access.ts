/**
 * Which tables and columns one statement reads, held against what a person may read: refused when it names a
 * table or column not granted to them, metadata the tools show filtered instead, or a masked table by another
 * path than its plain name; otherwise the tables it reads, so they can be masked (`masked-view.ts`).
 *
 * Names are found on tokens, conservatively: any name equal to a table of the database counts as reading it. A
 * name that is only an alias or a column of the same spelling costs a refusal, never a leak; and the database
 * itself (the masked views) is what finally holds, so a name missed here still reads only the view.
 */
import { readMysqlTableReferences } from '../db/guard/mysql-table-references.js';
import { joinTokens, nameOf, type SqlDialect, type SqlToken } from '../db/guard/sql-tokens.js';
import type { DatabaseAccess } from './access.js';
import type { ViewColumn } from './masked-view.js';
import {
  type OtherTable,
  postgresEchoProblem,
  postgresMetadata,
  postgresOtherTables,
} from './postgres-statement-access.js';

export interface StatementRead {
  /** Tables of the database's own schema the statement reads, with the person's view of each. */
  tables: Array<{ table: string; columns: ViewColumn[] }>;
  /** Tables of other schemas (`schema.table`), granted whole. */
  others: string[];
}

/**
 * A token that may name a table or column: a name, and on SQLite also a single-quoted string, which SQLite reads
 * as a name where a name is expected (`FROM 'customers'`).
 */
function nameish(token: SqlToken | undefined, dialect: SqlDialect): string | undefined {
  const name = nameOf(token);
  if (name !== undefined || dialect !== 'sqlite' || token?.kind !== 'quoted' || !token.text.startsWith("'"))
    return name;
  return token.text.slice(1, -1).replaceAll("''", "'");
}

/** `dbstat` is SQLite's table of page sizes: the lengths of masked values. */
const METADATA_NAMES = new Set([
  'information_schema',
  'sqlite_master',
  'sqlite_schema',
  'sqlite_temp_master',
  'dbstat',
]);
/** MySQL's and SQLite's; PostgreSQL's SHOW reads settings only (the guard allows a few), no metadata. */
const METADATA_STATEMENTS = new Set(['SHOW', 'DESCRIBE', 'DESC', 'PRAGMA']);

export interface StatementCheckInput {
  tokens: readonly SqlToken[];
  dialect: SqlDialect;
  /** The database's own schema (`main` on SQLite). */
  schema: string;
  /** Every table of the own schema, as the database names them. */
  tables: readonly string[];
  /** The columns of a table of the own schema, or of `schema`'s, as the database names them. */
  columnsOf: (table: string, schema?: string) => Promise<string[]>;
  access: DatabaseAccess;
}

/** A refusal's wording (for the model) or what the statement reads. */
export async function checkStatement(input: StatementCheckInput): Promise<StatementRead | { refused: string }> {
  const { tokens, dialect, schema, access } = input;
  const lead = tokens[0]?.keyword ?? '';
  if (dialect !== 'postgres' && METADATA_STATEMENTS.has(lead)) return { refused: `${lead} ${metadataHint}` };
  // The table a name reads: the one spelt exactly so, else every one it matches ignoring case (SQLite ignores case;
  // a MySQL server on a case-sensitive file system may hold both `Secret` and `secret`, and all are checked).
  const byLower = new Map<string, string[]>();
  for (const table of input.tables)
    byLower.set(table.toLowerCase(), [...(byLower.get(table.toLowerCase()) ?? []), table]);
  const exact = new Set(input.tables);
  const read = new Set<string>();
  for (const [at, token] of tokens.entries()) {
    const name = nameish(token, dialect);
    if (name === undefined) continue;
    const lower = name.toLowerCase();
    if (METADATA_NAMES.has(lower) || lower.startsWith('pragma_')) return { refused: `${name} ${metadataHint}` };
    const metadata = dialect === 'postgres' ? postgresMetadata(tokens, at) : undefined;
    if (metadata !== undefined) return { refused: `${metadata} ${metadataHint}` };
    const named = exact.has(name) ? [name] : (byLower.get(lower) ?? []);
    if (named.length === 0) continue;
    const qualifier = tokens[at - 1]?.text === '.' ? nameish(tokens[at - 2], dialect) : undefined;
    if (qualifier !== undefined && qualifier.toLowerCase() !== schema.toLowerCase()) continue; // alias.column
    for (const table of named) {
      if (!access.tableGrant(table)) return { refused: notGranted(`table ${table}`, await grantedTables(input)) };
      read.add(table);
    }
  }
  const tables: StatementRead['tables'] = [];
  for (const table of read) {
    const columns = await Promise.all(
      (await input.columnsOf(table)).map(async (name) => ({ name, access: access.column(table, name).access })),
    );
    tables.push({ table, columns });
  }
  const masked = tables.filter(({ columns }) => columns.some((column) => column.access !== 'raw'));
  const problem =
    qualifiedMasked(tokens, dialect, schema, masked) ??
    deniedColumn(tokens, dialect, tables) ??
    leadProblem(lead, masked) ??
    (dialect === 'postgres' ? postgresEchoProblem(tokens, input.tables) : undefined);
  if (problem) return { refused: problem };
  const others = otherSchemaTables(tokens, dialect, schema);
  if (typeof others === 'string') return { refused: others };
  for (const other of others) {
    const name = `${other.schema}.${other.table}`;
    if (!access.tableGrant(name)) return { refused: notGranted(`table ${name}`, await grantedTables(input)) };
    const columns = await input.columnsOf(other.table, other.schema);
    const partial = columns.find((column) => access.column(name, column).access !== 'raw');
    if (partial !== undefined) {
      return {
        refused: `${name}.${partial} is masked or not granted to you, and masking applies only to the database's own schema: ${name} cannot be read here. Ask the people who run tally to configure that schema as a database of its own (DATABASE_URL_<NAME>).`,
      };
    }
  }
  return { tables, others: others.map((other) => `${other.schema}.${other.table}`) };
}

const metadataHint =
  'is not available under the access policy: use the list_tables and describe_table tools, which show the tables and columns you may read.';

function notGranted(what: string, granted: string[]): string {
  const list = granted.length > 0 ? granted.join(', ') : 'none';
  return `${what} is not granted to you by the access policy. Tables you may read here: ${list}.`;
}

async function grantedTables(input: StatementCheckInput): Promise<string[]> {
  return input.tables.filter((table) => input.access.tableGrant(table));
}

/** `telco.crm` or `main.crm` for a masked table would read the base table, not its view. */
function qualifiedMasked(
  tokens: readonly SqlToken[],
  dialect: SqlDialect,
  schema: string,
  masked: StatementRead['tables'],
): string | undefined {
  for (const [at, token] of tokens.entries()) {
    if (tokens[at + 1]?.text !== '.' || nameish(token, dialect)?.toLowerCase() !== schema.toLowerCase()) continue;
    const name = nameish(tokens[at + 2], dialect)?.toLowerCase();
    const table = masked.find((candidate) => candidate.table.toLowerCase() === name);
    if (table) {
      return `${table.table} is masked for you by the access policy; name it without its schema (${table.table}, not ${schema}.${table.table}).`;
    }
  }
  return undefined;
}

/** A column the person may not read, named where no table read here has a readable column of that name. */
function deniedColumn(
  tokens: readonly SqlToken[],
  dialect: SqlDialect,
  tables: StatementRead['tables'],
): string | undefined {
  const readable = new Set(
    tables.flatMap(({ columns }) =>
      columns.filter((column) => column.access !== 'denied').map((column) => column.name.toLowerCase()),
    ),
  );
  for (const token of tokens) {
    const name = nameish(token, dialect)?.toLowerCase();
    if (name === undefined || readable.has(name)) continue;
    for (const { table, columns } of tables) {
      const denied = columns.find((column) => column.access === 'denied' && column.name.toLowerCase() === name);
      if (!denied) continue;
      const allowed = columns.filter((column) => column.access !== 'denied').map(describeColumn);
      return `column ${table}.${denied.name} is not granted to you by the access policy. Columns of ${table} you may read: ${allowed.join(', ') || 'none'} (SELECT * reads just these).`;
    }
  }
  return undefined;
}

export function describeColumn(column: ViewColumn): string {
  if (column.access === 'hash') return `${column.name} (pseudonymised)`;
  if (column.access === 'redact') return `${column.name} (redacted: always NULL)`;
  return column.name;
}

function leadProblem(lead: string, masked: StatementRead['tables']): string | undefined {
  if (masked.length === 0 || lead === 'SELECT' || lead === 'WITH') return undefined;
  return `a statement that reads a masked table (${masked.map((table) => table.table).join(', ')}) must start with SELECT or WITH under the access policy.`;
}

/** Tables of schemas other than the database's own that the statement reads (SQLite has none), or why it cannot tell. */
function otherSchemaTables(tokens: readonly SqlToken[], dialect: SqlDialect, schema: string): OtherTable[] | string {
  if (dialect === 'sqlite') return [];
  if (dialect === 'postgres') return postgresOtherTables(tokens, schema);
  if (!tokens.some((token, at) => token.text === '.' && at > 0)) return [];
  const references = readMysqlTableReferences(joinTokens(tokens));
  if ('reason' in references) return `the statement could not be read: ${references.reason}.`;
  const others = new Map<string, OtherTable>();
  for (const { schema: other, table } of references.tables) {
    if (other !== null && other !== schema) others.set(`${other}.${table}`, { schema: other, table });
  }
  return [...others.values()];
}
