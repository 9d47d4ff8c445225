/**
 * Which schemas a configured database may read, and the wording of a refusal. A MySQL connection may read its own
 * database (the one in DATABASE_URL), any listed in DATABASE_SCHEMAS_<NAME>, and the table/column/key metadata of
 * information_schema; a PostgreSQL one likewise its own schema and the listed ones, plus the metadata of
 * information_schema and pg_catalog in `postgres-catalog.ts`; an SQLite one its main file only.
 */
import { postgresAllowedSentence } from './postgres-catalog.js';
import type { SqlProblem } from './sql-problem.js';
import type { SqlDialect } from './sql-tokens.js';

export interface SqlScope {
  /**
   * MySQL: the schemas a qualified name may name, the connection's own database first (unqualified names always
   * resolve to it, since USE is refused). Compared exactly: on servers with case-sensitive schema names `Telco` and
   * `telco` are different schemas. PostgreSQL: the same, the connection's schema (its search_path) first, compared
   * with a name as the server folds it (`Sales` is sales, `"Sales"` is Sales). Ignored for SQLite. Default: none,
   * so only unqualified names.
   */
  schemas: readonly string[];
}

/**
 * information_schema tables that describe tables, columns and keys. Their rows cover only what the account may
 * see, so for a privileged account they also name (never show the rows of) other schemas' tables: the read-only
 * account, granted on this database alone, is what keeps that list short.
 */
export const METADATA_TABLES: ReadonlySet<string> = new Set([
  'TABLES',
  'COLUMNS',
  'KEY_COLUMN_USAGE',
  'STATISTICS',
  'TABLE_CONSTRAINTS',
  'REFERENTIAL_CONSTRAINTS',
  'VIEWS',
]);

/** Schemas that hold accounts, sessions and server internals, refused wherever they appear, even as `alias.x`. */
export const SERVER_SCHEMAS: ReadonlySet<string> = new Set([
  'mysql',
  'performance_schema',
  'sys',
  'information_schema',
]);

export const NO_SCOPE: SqlScope = { schemas: [] };

/** Why `schema.table` may not be read, or `undefined` when it may. */
export function schemaProblem(schema: string, table: string, scope: SqlScope): SqlProblem | undefined {
  if (scope.schemas.includes(schema)) return undefined;
  if (schema.toLowerCase() === 'information_schema') {
    if (METADATA_TABLES.has(table.toUpperCase())) return undefined;
    return scopeProblem(`information_schema.${table} is not table, column or key metadata`, scope);
  }
  return scopeProblem(`${schema}.${table} is in another schema`, scope);
}

/** A refusal whose message says which schemas and metadata may be read. */
export function scopeProblem(reason: string, scope: SqlScope, dialect: SqlDialect = 'mysql'): SqlProblem {
  return { reason, allowed: allowedSentence(scope, dialect) };
}

function allowedSentence(scope: SqlScope, dialect: SqlDialect): string {
  if (dialect === 'sqlite') {
    return 'Only the tables of this SQLite file can be read (unqualified names or main.name; no other schema, no ATTACH).';
  }
  if (dialect === 'postgres') return postgresAllowedSentence(scope.schemas);
  const metadata = `plus information_schema's table, column and key metadata (${[...METADATA_TABLES].join(', ')})`;
  const [own, ...more] = scope.schemas;
  if (!own) return `Only the tables of the current database can be read (unqualified names), ${metadata}.`;
  const names = [own, ...more].join(', ');
  const schemas = more.length > 0 ? `the ${names} schemas` : `the ${own} schema`;
  return `Only the tables of ${schemas} can be read (unqualified names are in ${own}), ${metadata}.`;
}
