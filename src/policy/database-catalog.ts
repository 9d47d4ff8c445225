/**
 * What `tally policy apply` and the start-up check read of one configured MySQL/MariaDB or PostgreSQL database,
 * through tally's own account (so both compute the same view profiles): the server's name for that account, where
 * the base tables are, and their columns.
 */
import type { DatabaseSettings } from '../base/config-types.js';
import { isPostgresUrl } from '../db/open-database.js';
import { openPlainConnection, type PlainConnection } from '../db/plain-connection.js';
import { postgresConnection } from '../db/postgres/postgres-database.js';
import { accountName } from './profile-sql.js';
import { type Catalog, catalogOf, catalogQuery } from './view-profile.js';

export interface DatabaseCatalog {
  dialect: 'mysql' | 'postgres';
  catalog: Catalog;
  /** tally's own account as GRANT names it (`'tally'@'%'`, `"tally"`). */
  runtime: string;
  /** PostgreSQL: the database the URL names, which profile logins may connect to. */
  serverDatabase?: string;
}

/** Whether `settings` is a database the policy's views can be made in (SQLite has no logins). */
export function hasLogins(settings: DatabaseSettings): boolean {
  return !settings.embedded && !settings.url.startsWith('sqlite:');
}

export async function readDatabaseCatalog(settings: DatabaseSettings): Promise<DatabaseCatalog> {
  const connection = await openPlainConnection(settings.url);
  try {
    return isPostgresUrl(settings.url)
      ? await postgresCatalog(connection, settings)
      : await mysqlCatalog(connection, settings);
  } finally {
    await connection.close().catch(() => {});
  }
}

async function mysqlCatalog(connection: PlainConnection, settings: DatabaseSettings): Promise<DatabaseCatalog> {
  const [info] = await connection.query('SELECT DATABASE() AS db, CURRENT_USER() AS account');
  const schema = String(info?.db ?? '');
  const account = String(info?.account ?? '');
  const at = account.lastIndexOf('@');
  const rows = await connection.query(catalogQuery('mysql', [schema, ...(settings.schemas ?? [])]));
  return {
    dialect: 'mysql',
    catalog: catalogOf(
      schema,
      schema,
      rows.map((row) => Object.values(row)),
    ),
    runtime: accountName('mysql', account.slice(0, at), account.slice(at + 1)),
  };
}

async function postgresCatalog(connection: PlainConnection, settings: DatabaseSettings): Promise<DatabaseCatalog> {
  const [info] = await connection.query(
    'SELECT current_database() AS db, current_schema() AS schema, current_user AS account',
  );
  const schema = postgresConnection(settings.url).schema ?? String(info?.schema ?? 'public');
  const serverDatabase = String(info?.db ?? '');
  const rows = await connection.query(catalogQuery('postgres', [schema, ...(settings.schemas ?? [])]));
  return {
    dialect: 'postgres',
    catalog: catalogOf(
      schema,
      `${serverDatabase}.${schema}`,
      rows.map((row) => Object.values(row)),
    ),
    runtime: accountName('postgres', String(info?.account ?? '')),
    serverDatabase,
  };
}
