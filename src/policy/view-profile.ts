/**
 * A view profile: what one combination of grants lets a person read in one database (the tables, their granted
 * columns and how each is masked, whole tables of other schemas), as the database enforces it with a schema of views
 * and a login of its own (`tally policy apply`). Its name is a digest of its content, so a person's statements run
 * as exactly the login whose views match what the policy gives them today, and a policy or schema that changed
 * since the last `apply` finds no such login: the statement is refused (fail closed), never run through a wider one.
 */
import { createHash } from 'node:crypto';
import type { SqlDialect } from '../db/guard/sql-tokens.js';
import { type AppliedGrant, DatabaseAccess } from './access.js';
import { quoteString, type ViewColumn } from './masked-view.js';
import type { Policy } from './policy-file.js';

/** The columns of the tables a profile can be made of, as the server lists them. */
export interface Catalog {
  /** The database's own schema (MySQL: the database; PostgreSQL: the URL's schema). */
  schema: string;
  /** What names the base tables on the server: the schema, on PostgreSQL with its database (`crm.public`). */
  location: string;
  /** Tables of the own schema: name → columns in order. */
  tables: ReadonlyMap<string, readonly string[]>;
  /** Tables of the other schemas the connector may read: `schema.table` → columns. */
  others: ReadonlyMap<string, readonly string[]>;
}

export interface ViewProfile {
  /** `tally_p_` and 12 hex digits: the schema of views and the login share it. */
  name: string;
  /** The configured database. */
  database: string;
  schema: string;
  /** Granted tables of the own schema, each with its granted columns only (none `denied`). */
  tables: Array<{ table: string; columns: ViewColumn[] }>;
  /** Tables of other schemas granted whole (`schema.table`), read in place. */
  others: string[];
}

/** Principal sets per database past which `possibleProfiles` would try too many combinations. */
export const MAX_PRINCIPAL_SETS = 12;

/** The profile `access` reads through, or undefined when it grants no column of the database. */
export function viewProfile(database: string, access: DatabaseAccess, catalog: Catalog): ViewProfile | undefined {
  const tables = [...catalog.tables]
    .filter(([table]) => access.tableGrant(table))
    .map(([table, columns]) => ({
      table,
      columns: columns
        .map((name) => ({ name, access: access.column(table, name).access }))
        .filter((column) => column.access !== 'denied'),
    }))
    .filter(({ columns }) => columns.length > 0)
    .sort((a, b) => (a.table < b.table ? -1 : 1));
  const others = [...catalog.others]
    .filter(
      ([table, columns]) => access.tableGrant(table) && columns.every((c) => access.column(table, c).access === 'raw'),
    )
    .map(([table]) => table)
    .sort();
  if (tables.length === 0 && others.length === 0) return undefined;
  const digest = createHash('sha256')
    .update(JSON.stringify({ database, location: catalog.location, tables, others }))
    .digest('hex');
  return { name: `tally_p_${digest.slice(0, 12)}`, database, schema: catalog.schema, tables, others };
}

/**
 * Every profile someone could have in `database` under `policy`: one per combination of the principal sets its
 * grants name (a person may belong to several), the same profile kept once.
 */
export function possibleProfiles(policy: Policy, database: string, catalog: Catalog): ViewProfile[] {
  const grants = policy.grants.flatMap((grant, index) => (grant.database === database ? [{ grant, index }] : []));
  const sets = [...new Set(grants.flatMap(({ grant }) => grant.to))].sort();
  if (sets.length > MAX_PRINCIPAL_SETS) {
    throw new Error(
      `${sets.length} principal sets have grants in ${database}; tally policy apply makes a login per combination and takes at most ${MAX_PRINCIPAL_SETS}`,
    );
  }
  const sensitive = policy.databases[database]?.sensitive ?? {};
  const profiles = new Map<string, ViewProfile>();
  const tried = new Set<string>();
  for (let mask = 1; mask < 2 ** sets.length; mask += 1) {
    const members = sets.filter((_, bit) => mask & (2 ** bit));
    const applied: AppliedGrant[] = grants
      .filter(({ grant }) => grant.to.some((name) => members.includes(name)))
      .map(({ grant, index }) => ({ grant, index, via: members }));
    const key = applied.map(({ index }) => index).join(',');
    if (tried.has(key)) continue;
    tried.add(key);
    const profile = viewProfile(database, new DatabaseAccess(database, applied, sensitive), catalog);
    if (profile) profiles.set(profile.name, profile);
  }
  return [...profiles.values()];
}

/** The statement that lists the columns of `schemas` for `readCatalog`, in table and column order. */
export function catalogQuery(dialect: Exclude<SqlDialect, 'sqlite'>, schemas: readonly string[]): string {
  const list = schemas.map((schema) => quoteString(dialect, schema)).join(', ');
  return dialect === 'mysql'
    ? `SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA IN (${list}) ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`
    : `SELECT table_schema, table_name, column_name FROM information_schema.columns WHERE table_schema IN (${list}) ORDER BY table_schema, table_name, ordinal_position`;
}

/** A catalog from `catalogQuery`'s rows (schema, table, column). */
export function catalogOf(schema: string, location: string, rows: ReadonlyArray<readonly unknown[]>): Catalog {
  const tables = new Map<string, string[]>();
  const others = new Map<string, string[]>();
  for (const [owner, table, column] of rows) {
    const own = String(owner) === schema;
    const map = own ? tables : others;
    const key = own ? String(table) : `${String(owner)}.${String(table)}`;
    map.set(key, [...(map.get(key) ?? []), String(column)]);
  }
  return { schema, location, tables, others };
}
