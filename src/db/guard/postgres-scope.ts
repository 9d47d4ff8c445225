/**
 * Layer one's schema scope on PostgreSQL (`sql-scope.ts` calls in): a statement may read the configured schemas
 * and the metadata in `postgres-catalog.ts`, nothing else. The SQL parser finds every table
 * (`postgres-table-references.ts`); a statement it cannot read is refused. Token rules come first and back it up:
 *
 * - The server searches pg_catalog before the search_path (and every pg_catalog relation's name starts with
 *   `pg_`), so an unqualified `pg_authid` is the catalog: any name starting with `pg_` that is not a call must be
 *   one of the catalog tables allowed, wherever it stands (FROM, a column, an alias, a CTE's name).
 * - `information_schema.x` and `pg_catalog.x` are checked wherever they appear, even as an alias's column.
 * - `schema.function(…)` is allowed for the configured schemas and pg_catalog only (their functions' names are
 *   checked in `postgres-calls.ts`).
 * - Every other `a.b` must start with a table, alias or CTE the parser found, or a schema in scope, so a table the
 *   parser overlooks cannot carry another schema's name past it.
 *
 * Unqualified names other than `pg_…` resolve through the search_path, which the connector sets to the
 * connection's own schema (`postgres-database.ts`); the guard refuses SET, so a statement cannot change it.
 */
import { POSTGRES_CATALOG_TABLES, POSTGRES_METADATA_VIEWS } from './postgres-catalog.js';
import { postgresExplainTarget } from './postgres-statements.js';
import { readPostgresTableReferences } from './postgres-table-references.js';
import { type SqlScope, scopeProblem } from './schema-scope.js';
import type { SqlProblem } from './sql-problem.js';
import type { SqlToken } from './sql-tokens.js';

const PG_NAME_HINT =
  'Names starting with pg_ are read from pg_catalog first: if it is an alias or a CTE, choose another name; ' +
  'if it is a table of your own, qualify it with its schema.';

/**
 * The name a word or quoted-name token stands for on the server: words fold to lower case (ASCII only, as the
 * server folds them), quoted names keep theirs. A number is no name; PostgreSQL 14 reads `1pg_authid` as 1 and
 * `pg_authid`, so a leading number is dropped.
 */
export function postgresName(token: SqlToken | undefined): string | undefined {
  if (token?.kind === 'word') {
    const name = token.text.replace(/^[0-9]+(?:[eE][0-9]+)?/, '');
    return name ? name.replace(/[A-Z]+/g, (upper) => upper.toLowerCase()) : undefined;
  }
  if (token?.kind === 'quoted' && token.text.startsWith('"')) return token.text.slice(1, -1).replaceAll('""', '"');
  return undefined;
}

/** `tokens`: one statement the guard has already accepted as read-only. */
export function checkPostgresScope(tokens: readonly SqlToken[], scope: SqlScope): SqlProblem | undefined {
  const lead = tokens[0]?.keyword;
  // SHOW names a setting, checked with the statement (`postgres-statements.ts`).
  if (lead === 'SHOW') return undefined;
  let query = tokens;
  if (lead === 'EXPLAIN') {
    const at = postgresExplainTarget(tokens);
    if (typeof at !== 'number') return at;
    query = tokens.slice(at);
  }
  const early = query.map((_, at) => nameProblem(query, at, scope)).find(Boolean);
  if (early) return early;
  const references = readPostgresTableReferences(query);
  if ('reason' in references) return references;
  for (const { schema, table } of references.tables) {
    const problem = tableProblem(schema, table, scope);
    if (problem) return problem;
  }
  for (const [at, token] of query.entries()) {
    const qualifier = postgresName(token);
    const right = query[at + 2];
    if (qualifier === undefined || query[at + 1]?.text !== '.' || !right || /^[0-9]/.test(right.text)) continue;
    if (scope.schemas.includes(qualifier) || SYSTEM_SCHEMAS.has(qualifier) || references.qualifiers.has(qualifier)) {
      continue;
    }
    const name = right.text === '*' ? '*' : (postgresName(right) ?? right.text);
    return scopeProblem(
      `${qualifier}.${name}: ${qualifier} is neither a table or alias of this statement nor a schema it may read`,
      scope,
      'postgres',
    );
  }
  return undefined;
}

const SYSTEM_SCHEMAS = new Set(['pg_catalog', 'information_schema']);

/** The token rules above, for the name at `at`. */
function nameProblem(tokens: readonly SqlToken[], at: number, scope: SqlScope): SqlProblem | undefined {
  const name = postgresName(tokens[at]);
  if (name === undefined) return undefined;
  const qualifier = tokens[at - 1]?.text === '.' ? postgresName(tokens[at - 2]) : undefined;
  const next = tokens[at + 1]?.text;
  const lower = name.toLowerCase();
  if (next === '(') {
    if (qualifier === undefined || scope.schemas.includes(qualifier) || qualifier === 'pg_catalog') return undefined;
    return scopeProblem(`${qualifier}.${name}(…) calls a function of another schema`, scope, 'postgres');
  }
  if (qualifier !== undefined && scope.schemas.includes(qualifier)) return undefined;
  if (qualifier?.toLowerCase() === 'information_schema') {
    if (qualifier === 'information_schema' && POSTGRES_METADATA_VIEWS.has(name)) return undefined;
    return scopeProblem(`information_schema.${name} is not table, column or key metadata`, scope, 'postgres');
  }
  // pg_catalog.int4 and the like are types: every relation of pg_catalog starts with pg_.
  if (!lower.startsWith('pg_') || POSTGRES_CATALOG_TABLES.has(name)) return undefined;
  if (next === '.' && qualifier === undefined) {
    // pg_toast, pg_temp_3 …: the server's own schemas.
    return name === 'pg_catalog' ? undefined : scopeProblem(`${name} is a system schema`, scope, 'postgres');
  }
  const shown = qualifier === undefined ? name : `${qualifier}.${name}`;
  const problem = scopeProblem(`${shown} is a system catalog outside the metadata allowed`, scope, 'postgres');
  return qualifier === 'pg_catalog' ? problem : { ...problem, hint: PG_NAME_HINT };
}

/** Why a table the parser found may not be read, or `undefined` when it may. */
function tableProblem(schema: string | null, table: string, scope: SqlScope): SqlProblem | undefined {
  if (schema === null) {
    if (!table.toLowerCase().startsWith('pg_') || POSTGRES_CATALOG_TABLES.has(table)) return undefined;
    return {
      ...scopeProblem(`${table} is a system catalog outside the metadata allowed`, scope, 'postgres'),
      hint: PG_NAME_HINT,
    };
  }
  if (scope.schemas.includes(schema)) return undefined;
  if (schema === 'pg_catalog' && POSTGRES_CATALOG_TABLES.has(table)) return undefined;
  if (schema === 'information_schema' && POSTGRES_METADATA_VIEWS.has(table)) return undefined;
  const reason =
    schema === 'pg_catalog' || schema === 'information_schema'
      ? `${schema}.${table} is not table, column or key metadata`
      : `${schema}.${table} is in another schema`;
  return scopeProblem(reason, scope, 'postgres');
}
