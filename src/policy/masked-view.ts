/**
 * The SQL that makes the access policy hold inside the database: each table a statement reads that the person
 * may see only in part becomes a common table expression of the same name, placed in front of the statement,
 * that selects the granted columns only, a keyed pseudonym for hashed ones and NULL for redacted ones. Whatever
 * the statement then does with the table (joins, filters, `SELECT *`, subqueries), it sees only that view.
 */
import { createHmac } from 'node:crypto';
import type { SqlDialect, SqlToken } from '../db/guard/sql-tokens.js';
import type { ColumnAccess } from './access.js';

export interface ViewColumn {
  name: string;
  access: ColumnAccess;
}

export interface MaskedTable {
  table: string;
  columns: readonly ViewColumn[];
}

/**
 * The pseudonym key of one database: derived from the deployment's secret (TALLY_PSEUDONYM_KEY), so the literal
 * in the SQL is not the secret and two databases pseudonymise alike only if told to.
 */
export function pseudonymKey(secret: string, database: string): string {
  return createHmac('sha256', secret).update(`tally pseudonym:${database}`).digest('hex');
}

/**
 * 16 hex digits of SHA-256 over key and value: stable per value, so joins and group-bys still work. The three
 * dialects give the same digits for the same text, integer or date (PostgreSQL writes dates as MySQL does because
 * the connector sets DateStyle ISO), so pseudonyms from different databases match (policy-pseudonyms.test.ts).
 * `key`: SQL that gives the key (a literal here, a subquery of a table only the view's owner reads in the views
 * `tally policy apply` creates).
 */
export function pseudonymSql(dialect: SqlDialect, key: string, column: string): string {
  if (dialect === 'mysql') return `LEFT(SHA2(CONCAT(${key}, ${column}), 256), 16)`;
  if (dialect === 'postgres') return `left(encode(sha256(convert_to(${key} || ${column}::text, 'UTF8')), 'hex'), 16)`;
  return `tally_pseudonym(${key}, ${column})`;
}

export const TYPED_NULL: Record<SqlDialect, string> = {
  mysql: 'CAST(NULL AS CHAR)',
  postgres: 'NULL::text',
  sqlite: 'NULL',
};

/** The largest LIMIT MySQL takes: no limit at all, but a view with it is never merged. */
export const UNLIMITED = '18446744073709551615';

/** A string literal: MySQL with its default sql_mode reads a backslash as an escape, the others as itself. */
export function quoteString(dialect: SqlDialect, text: string): string {
  const escaped = dialect === 'mysql' ? text.replaceAll('\\', '\\\\') : text;
  return `'${escaped.replaceAll("'", "''")}'`;
}

export function quoteName(dialect: SqlDialect, name: string): string {
  return dialect === 'mysql' ? `\`${name.replaceAll('`', '``')}\`` : `"${name.replaceAll('"', '""')}"`;
}

/** What a view selects for `column`: the column, its pseudonym, a typed NULL, or nothing when it is denied. */
export function columnExpression(dialect: SqlDialect, key: string, column: ViewColumn): string | undefined {
  const name = quoteName(dialect, column.name);
  if (column.access === 'raw') return name;
  if (column.access === 'hash') return `${pseudonymSql(dialect, key, name)} AS ${name}`;
  if (column.access === 'redact') return `${TYPED_NULL[dialect]} AS ${name}`;
  return undefined;
}

/**
 * `statement` (one guarded statement, as tokens) with the views of `tables` in front: merged into its own WITH
 * when it has one. `schema`: where the base tables are (`main` on SQLite), so a view never reads itself.
 */
export function withMaskedViews(options: {
  sql: string;
  tokens: readonly SqlToken[];
  dialect: SqlDialect;
  schema: string;
  key: string;
  tables: readonly MaskedTable[];
}): string {
  const { sql, tokens, dialect, schema, key, tables } = options;
  const views = tables.map(({ table, columns }) => {
    const list = columns.flatMap((column) => columnExpression(dialect, `'${key}'`, column) ?? []).join(', ');
    const source = `${quoteName(dialect, schema)}.${quoteName(dialect, table)}`;
    const hashed = columns.some((column) => column.access === 'hash');
    // A view with pseudonyms is built once, not merged into the statement: merged, a join on a pseudonym hashes
    // both sides for every pair of rows (13 s for 5,634 x 5,634 rows against 35 ms materialised, where the
    // server indexes the view on the join key). The LIMIT is what keeps MySQL and MariaDB from merging it.
    if (!hashed) return `${quoteName(dialect, table)} AS (SELECT ${list} FROM ${source})`;
    return dialect === 'mysql'
      ? `${quoteName(dialect, table)} AS (SELECT ${list} FROM ${source} LIMIT ${UNLIMITED})`
      : `${quoteName(dialect, table)} AS MATERIALIZED (SELECT ${list} FROM ${source})`;
  });
  const first = tokens[0];
  const body = first ? sql.slice(first.start, tokens[tokens.length - 1]?.end) : sql;
  if (first?.keyword !== 'WITH') return `WITH ${views.join(', ')} ${body}`;
  const recursive = tokens[1]?.keyword === 'RECURSIVE';
  const after = (recursive ? tokens[1] : first)?.end ?? first.end;
  return `${sql.slice(first.start, after)} ${views.join(', ')}, ${sql.slice(after, tokens[tokens.length - 1]?.end)}`;
}
