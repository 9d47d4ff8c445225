/**
 * The ways a statement of the masking battery names a table and its columns: plainly, qualified by the table, under
 * an alias, quoted, in mixed case, with the schema (which the policy refuses for a masked table, and which the
 * masked copy resolves to its own schema), and shadowed by a common table expression named like the table.
 */
import type { Dialect } from './masking-probes.js';

/** Stand for the database's own schema (MariaDB's is made per run), in upper case, and (PostgreSQL) the database. */
export const SCHEMA = '<schema>';
export const SCHEMA_UPPER_CASE = '<SCHEMA>';
export const CATALOG = '<catalog>';

export interface Reference {
  name: string;
  dialects: readonly Dialect[];
  /** The FROM item for `table`; `alias` is used where the form names it. */
  from(table: string, alias: string, dialect: Dialect): string;
  /** A column of that FROM item as the statement writes it. */
  column(table: string, alias: string, column: string, dialect: Dialect): string;
  /** Common table expressions the statement defines first, in whichever WITH the form reads the table from. */
  ctes?(table: string, dialect: Dialect): string[];
}

const ALL: readonly Dialect[] = ['mysql', 'postgres', 'sqlite'];

const quote = (dialect: Dialect, name: string) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
const capitalised = (word: string) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;

const aliased = (name: string, from: (table: string, dialect: Dialect) => string, extra: Partial<Reference> = {}) =>
  ({
    name,
    dialects: ALL,
    from: (table, alias, dialect) => `${from(table, dialect)} AS ${alias}`,
    column: (_table, alias, column) => `${alias}.${column}`,
    ...extra,
  }) satisfies Reference;

export const REFERENCES: readonly Reference[] = [
  { name: 'plain', dialects: ALL, from: (table) => table, column: (_table, _alias, column) => column },
  {
    name: 'table-qualified',
    dialects: ALL,
    from: (table) => table,
    column: (table, _alias, column) => `${table}.${column}`,
  },
  aliased('aliased', (table) => table),
  {
    name: 'quoted',
    dialects: ALL,
    from: (table, _alias, dialect) => quote(dialect, table),
    column: (table, _alias, column, dialect) => `${quote(dialect, table)}.${quote(dialect, column)}`,
  },
  {
    name: 'mixed-case',
    dialects: ALL,
    from: (table, alias) => `${table.toUpperCase()} AS ${capitalised(alias)}`,
    column: (_table, alias, column) => `${capitalised(alias)}.${column.toUpperCase()}`,
  },
  aliased('schema', (table) => `${SCHEMA}.${table}`),
  aliased('schema-quoted', (table, dialect) => `${quote(dialect, SCHEMA)}.${quote(dialect, table)}`),
  aliased('schema-upper-case', (table) => `${SCHEMA_UPPER_CASE}.${table}`),
  { ...aliased('catalog-and-schema', (table) => `${CATALOG}.${SCHEMA}.${table}`), dialects: ['postgres'] },
  { ...aliased('only', (table) => `ONLY ${table}`), dialects: ['postgres'] },
  {
    name: 'schema-column',
    dialects: ALL,
    from: (table) => `${SCHEMA}.${table}`,
    column: (table, _alias, column) => `${SCHEMA}.${table}.${column}`,
  },
  {
    name: 'bracketed',
    dialects: ['sqlite'],
    from: (table) => `[${table}]`,
    column: (table, _alias, column) => `[${table}].[${column}]`,
  },
  { ...aliased('string-name', (table) => `'${table}'`), dialects: ['sqlite'] },
  {
    name: 'not-indexed',
    dialects: ['sqlite'],
    from: (table, alias) => `${table} AS ${alias} NOT INDEXED`,
    column: (_table, alias, column) => `${alias}.${column}`,
  },
  {
    name: 'system-time',
    dialects: ['mysql'],
    from: (table, alias) => `${table} FOR SYSTEM_TIME ALL AS ${alias}`,
    column: (_table, alias, column) => `${alias}.${column}`,
  },
  aliased('cte-named-like-table', (table) => table, {
    ctes: (table) => [`${table} AS (SELECT * FROM ${table})`],
  }),
  aliased('cte-named-like-table-quoted-upper', (table) => table, {
    ctes: (table, dialect) => [
      dialect === 'postgres'
        ? `"${table}" AS MATERIALIZED (SELECT * FROM ${table})`
        : `${quote(dialect, table.toUpperCase())} AS (SELECT * FROM ${table})`,
    ],
  }),
];

export function referencesFor(dialect: Dialect): Reference[] {
  return REFERENCES.filter((reference) => reference.dialects.includes(dialect));
}
