/**
 * The statements `tally policy apply` runs for the views the database enforces, per server:
 *
 * - a schema `tally_policy` with the pseudonym keys (readable by its owner alone, which the views read through) and
 *   the list of profiles applied (readable by tally's own account, so start-up can check it);
 * - per profile, a schema of views named like the tables, granted columns only, the keyed pseudonym computed inside
 *   the view and NULL for redacted columns, and a login that may read those views (and other schemas' tables granted
 *   whole) and nothing else: no SHOW VIEW, no base schema, no key.
 *
 * Secrets (the key, the logins' passwords) appear only as literals here; `--dry-run` prints them as `…`.
 */
import type { SqlDialect } from '../db/guard/sql-tokens.js';
import { columnExpression, quoteName, quoteString, TYPED_NULL, UNLIMITED } from './masked-view.js';
import type { ViewProfile } from './view-profile.js';

export const POLICY_SCHEMA = 'tally_policy';

type ServerDialect = Exclude<SqlDialect, 'sqlite'>;

/** `'user'@'host'` on MySQL, `"role"` on PostgreSQL. */
export function accountName(dialect: ServerDialect, login: string, host = '%'): string {
  return dialect === 'mysql'
    ? `${quoteString(dialect, login)}@${quoteString(dialect, host)}`
    : quoteName('postgres', login);
}

const MYSQL_HOSTS = ['%', 'localhost'];

const table = (dialect: ServerDialect, name: string) =>
  `${quoteName(dialect, POLICY_SCHEMA)}.${quoteName(dialect, name)}`;

/** The key the views of `location` read: a subquery of the owner-only key table. */
function keyExpression(dialect: ServerDialect, location: string): string {
  return `(SELECT pseudonym_key FROM ${table(dialect, 'pseudonym_keys')} WHERE location = ${quoteString(dialect, location)})`;
}

/** The policy schema, the key of `location`, and what tally's own account (`runtime`) may read of it. */
export function policySchemaStatements(
  dialect: ServerDialect,
  options: { location: string; key: string; runtime: string },
): string[] {
  const { location, key, runtime } = options;
  const keys = table(dialect, 'pseudonym_keys');
  const profiles = table(dialect, 'profiles');
  if (dialect === 'mysql') {
    return [
      `CREATE DATABASE IF NOT EXISTS ${quoteName(dialect, POLICY_SCHEMA)}`,
      `CREATE TABLE IF NOT EXISTS ${keys} (location VARCHAR(190) PRIMARY KEY, pseudonym_key VARCHAR(128) NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS ${profiles} (profile VARCHAR(64) PRIMARY KEY, database_name VARCHAR(190) NOT NULL, location VARCHAR(190) NOT NULL, applied_at VARCHAR(40) NOT NULL)`,
      `REPLACE INTO ${keys} (location, pseudonym_key) VALUES (${quoteString(dialect, location)}, ${quoteString(dialect, key)})`,
      `GRANT SELECT ON ${profiles} TO ${runtime}`,
    ];
  }
  return [
    `CREATE SCHEMA IF NOT EXISTS ${quoteName(dialect, POLICY_SCHEMA)}`,
    `REVOKE ALL ON SCHEMA ${quoteName(dialect, POLICY_SCHEMA)} FROM PUBLIC`,
    `CREATE TABLE IF NOT EXISTS ${keys} (location text PRIMARY KEY, pseudonym_key text NOT NULL)`,
    `REVOKE ALL ON ${keys} FROM PUBLIC`,
    `CREATE TABLE IF NOT EXISTS ${profiles} (profile text PRIMARY KEY, database_name text NOT NULL, location text NOT NULL, applied_at text NOT NULL)`,
    `INSERT INTO ${keys} (location, pseudonym_key) VALUES (${quoteString(dialect, location)}, ${quoteString(dialect, key)}) ON CONFLICT (location) DO UPDATE SET pseudonym_key = EXCLUDED.pseudonym_key`,
    `GRANT USAGE ON SCHEMA ${quoteName(dialect, POLICY_SCHEMA)} TO ${runtime}`,
    `GRANT SELECT ON ${profiles} TO ${runtime}`,
  ];
}

/**
 * The schema of views and the login of `profile`, made anew. `location`: whose key the pseudonyms use;
 * `serverDatabase`: PostgreSQL's database, which the login may connect to.
 */
export function profileStatements(
  dialect: ServerDialect,
  profile: ViewProfile,
  options: { location: string; password: string; serverDatabase?: string; appliedAt: string },
): string[] {
  const schema = quoteName(dialect, profile.name);
  // MySQL: for any host, and for localhost by name, where an anonymous ''@'localhost' would otherwise win.
  const logins = dialect === 'mysql' ? MYSQL_HOSTS.map((host) => accountName(dialect, profile.name, host)) : [];
  const key = keyExpression(dialect, options.location);
  const views = profile.tables.map(({ table: name, columns }) => {
    const list = columns.map((column) => columnExpression(dialect, key, column) ?? TYPED_NULL[dialect]).join(', ');
    const source = `${quoteName(dialect, profile.schema)}.${quoteName(dialect, name)}`;
    const hashed = columns.some((column) => column.access === 'hash');
    if (dialect === 'postgres')
      return `CREATE VIEW ${schema}.${quoteName(dialect, name)} AS SELECT ${list} FROM ${source}`;
    // Built once per statement, not merged, for the reason masked-view.ts gives (joins on a pseudonym).
    const algorithm = hashed ? 'TEMPTABLE' : 'MERGE';
    const limit = hashed ? ` LIMIT ${UNLIMITED}` : '';
    return `CREATE ALGORITHM=${algorithm} SQL SECURITY DEFINER VIEW ${schema}.${quoteName(dialect, name)} AS SELECT ${list} FROM ${source}${limit}`;
  });
  const others = profile.others.map((name) => {
    const [owner = '', rest = ''] = splitQualified(name);
    return `${quoteName(dialect, owner)}.${quoteName(dialect, rest)}`;
  });
  const record = `INSERT INTO ${table(dialect, 'profiles')} (profile, database_name, location, applied_at) VALUES (${quoteString(dialect, profile.name)}, ${quoteString(dialect, profile.database)}, ${quoteString(dialect, options.location)}, ${quoteString(dialect, options.appliedAt)})`;
  if (dialect === 'mysql') {
    return [
      ...dropProfileStatements(dialect, profile.name),
      `CREATE DATABASE ${schema}`,
      ...views,
      ...logins.flatMap((login) => [
        `CREATE USER ${login} IDENTIFIED BY ${quoteString(dialect, options.password)}`,
        `GRANT SELECT ON ${schema}.* TO ${login}`,
        ...others.map((other) => `GRANT SELECT ON ${other} TO ${login}`),
      ]),
      record,
    ];
  }
  const role = quoteName(dialect, profile.name);
  return [
    ...dropProfileStatements(dialect, profile.name),
    `CREATE SCHEMA ${schema}`,
    ...views,
    `CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION PASSWORD ${quoteString(dialect, options.password)}`,
    `ALTER ROLE ${role} SET default_transaction_read_only = on`,
    `GRANT CONNECT ON DATABASE ${quoteName(dialect, options.serverDatabase ?? '')} TO ${role}`,
    `GRANT USAGE ON SCHEMA ${schema} TO ${role}`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${role}`,
    ...[...new Set(profile.others.map((name) => splitQualified(name)[0] ?? ''))].map(
      (owner) => `GRANT USAGE ON SCHEMA ${quoteName(dialect, owner)} TO ${role}`,
    ),
    ...others.map((other) => `GRANT SELECT ON ${other} TO ${role}`),
    record,
  ];
}

/** What removes a profile: its schema, its login, its line in the list. Harmless when it is not there. */
export function dropProfileStatements(dialect: ServerDialect, name: string): string[] {
  const forget = `DELETE FROM ${table(dialect, 'profiles')} WHERE profile = ${quoteString(dialect, name)}`;
  if (dialect === 'mysql') {
    return [
      `DROP DATABASE IF EXISTS ${quoteName(dialect, name)}`,
      ...MYSQL_HOSTS.map((host) => `DROP USER IF EXISTS ${accountName(dialect, name, host)}`),
      forget,
    ];
  }
  const role = quoteName(dialect, name);
  return [
    `DROP SCHEMA IF EXISTS ${quoteName(dialect, name)} CASCADE`,
    // DROP OWNED needs the role to exist; the block makes the whole removal a no-op when it does not.
    `DO $$ BEGIN IF EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = ${quoteString(dialect, name)}) THEN EXECUTE 'DROP OWNED BY ${role.replaceAll("'", "''")}'; EXECUTE 'DROP ROLE ${role.replaceAll("'", "''")}'; END IF; END $$`,
    forget,
  ];
}

/** The profiles `apply` recorded for `database` at `location` (the base tables' schema), as tally's account reads them. */
export function appliedProfilesQuery(dialect: ServerDialect, database: string, location: string): string {
  return `SELECT profile FROM ${table(dialect, 'profiles')} WHERE database_name = ${quoteString(dialect, database)} AND location = ${quoteString(dialect, location)} ORDER BY profile`;
}

function splitQualified(name: string): [string, string] {
  const dot = name.indexOf('.');
  return [name.slice(0, dot), name.slice(dot + 1)];
}
