/**
 * The PostgreSQL role tally connects as: CONNECT on telco_db, USAGE on its schema, SELECT on the
 * schema's tables and nothing else, so even a query that slipped past tally's SQL guard cannot change
 * or drop the data. The password goes to the server as a SCRAM verifier (scram-verifier.ts), never as
 * text, and is never put into logs or error messages.
 */
import type pg from 'pg';
import { connectPostgres, type PostgresTarget, postgresError, quotePostgres } from './postgres-connection.js';
import { scramSha256Verifier } from './scram-verifier.js';
import { invalidArgument } from './telco-error.js';
import { parseTelcoTarget } from './telco-target.js';

export interface ReadonlyRoleOptions {
  /** Role name, e.g. `tally_ro`: letters, digits and underscores, at most 32 characters, not `pg_…`. */
  name: string;
  password: string;
  /** The option that gave the URL, for error messages: `--url` or `--target` (default). */
  urlFlag?: string;
}

export interface ReadonlyRole {
  name: string;
  database: string;
  schema: string;
}

const ROLE_NAME = /^(?!pg_)[A-Za-z0-9_]{1,32}$/;

/** Attributes a LOGIN role may have been given by hand, each with the keyword that removes it. */
const ATTRIBUTES = {
  rolsuper: 'NOSUPERUSER',
  rolcreatedb: 'NOCREATEDB',
  rolcreaterole: 'NOCREATEROLE',
  rolreplication: 'NOREPLICATION',
  rolbypassrls: 'NOBYPASSRLS',
} as const;

type RoleRow = Record<keyof typeof ATTRIBUTES, boolean> & { oid: number };

/** Creates the role, or resets its password and strips attributes and memberships it gained since. */
async function createOrReset(client: pg.Client, name: string, password: string): Promise<void> {
  const role = quotePostgres(name);
  // The server stores a verifier as given, whatever password_encryption says.
  const verifier = `PASSWORD '${scramSha256Verifier(password)}'`;
  const { rows } = await client.query<RoleRow>(
    `SELECT oid, ${Object.keys(ATTRIBUTES).join(', ')} FROM pg_roles WHERE rolname = $1`,
    [name],
  );
  const existing = rows[0];
  if (!existing) {
    await client.query(`CREATE ROLE ${role} LOGIN ${verifier}`);
    return;
  }
  // Only the attributes it has: naming NOSUPERUSER at all needs a superuser, and the loader may be
  // run by a role that only has CREATEROLE.
  const strip = Object.entries(ATTRIBUTES)
    .filter(([column]) => existing[column as keyof typeof ATTRIBUTES])
    .map(([, keyword]) => keyword);
  await client.query(`ALTER ROLE ${role} WITH LOGIN ${strip.join(' ')} VALID UNTIL 'infinity' ${verifier}`);
  const memberships = await client.query<{ rolname: string }>(
    'SELECT r.rolname FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid WHERE m.member = $1',
    [existing.oid],
  );
  for (const { rolname } of memberships.rows) await client.query(`REVOKE ${quotePostgres(rolname)} FROM ${role}`);
}

/** Exactly CONNECT, USAGE and SELECT: whatever it had on this database, schema and tables is revoked first. */
async function grantReadOnly(client: pg.Client, name: string, target: PostgresTarget): Promise<void> {
  const role = quotePostgres(name);
  const database = quotePostgres(target.database);
  const schema = quotePostgres(target.schema);
  for (const statement of [
    `REVOKE ALL ON DATABASE ${database} FROM ${role}`,
    `GRANT CONNECT ON DATABASE ${database} TO ${role}`,
    `REVOKE ALL ON SCHEMA ${schema} FROM ${role}`,
    `GRANT USAGE ON SCHEMA ${schema} TO ${role}`,
    `REVOKE ALL ON ALL TABLES IN SCHEMA ${schema} FROM ${role}`,
    `REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${schema} FROM ${role}`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${role}`,
    // The loader drops and recreates its tables; a later run without --readonly-user would otherwise
    // leave the role reading nothing. (MySQL's SELECT ON db.* outlives the tables in the same way.)
    `ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} REVOKE ALL ON TABLES FROM ${role}`,
    `ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} GRANT SELECT ON TABLES TO ${role}`,
  ]) {
    await client.query(statement);
  }
}

/**
 * Checks the role's name and password against `url` without touching the server, so the loader can
 * refuse them before it writes anything.
 */
export function checkReadonlyRole(url: string, options: ReadonlyRoleOptions): PostgresTarget {
  const urlFlag = options.urlFlag ?? '--target';
  const target = parseTelcoTarget(url, undefined, urlFlag);
  if (target.kind !== 'postgres') throw invalidArgument('--readonly-user', `only applies to a postgres:// ${urlFlag}`);
  if (!ROLE_NAME.test(options.name)) {
    throw invalidArgument(
      '--readonly-user',
      `'${options.name}' must be 1-32 letters, digits or underscores, not starting with pg_`,
    );
  }
  if (options.name === target.user) {
    throw invalidArgument('--readonly-user', `must differ from the loading user '${target.user}' in ${urlFlag}`);
  }
  if (options.password === '') throw invalidArgument('--readonly-password', 'must not be empty');
  return target;
}

/**
 * Creates the role (or resets it on re-runs) and leaves it with exactly CONNECT on the URL's database,
 * USAGE on its schema and SELECT on the schema's tables, all in one transaction. Privileges on other
 * databases are left alone. `url` is an admin URL (`postgres://postgres@host:port/telco_db`).
 */
export async function createReadonlyRole(url: string, options: ReadonlyRoleOptions): Promise<ReadonlyRole> {
  const urlFlag = options.urlFlag ?? '--target';
  const target = checkReadonlyRole(url, options);
  const client = await connectPostgres(target, target.database, urlFlag);
  try {
    await client.query('BEGIN');
    await createOrReset(client, options.name, options.password);
    await grantReadOnly(client, options.name, target);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw postgresError(error, target, '--readonly-user', `creating the read-only role '${options.name}'`, urlFlag);
  } finally {
    await client.end();
  }
  return { name: options.name, database: target.database, schema: target.schema };
}
