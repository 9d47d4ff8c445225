/**
 * Integration tests use a real PostgreSQL server (scripts/ensure-postgres.sh provides one and its
 * admin URL). Each test file makes its own database and roles and drops them afterwards. A missing
 * server is a failure that says what to do, never a skip.
 */
import { randomBytes } from 'node:crypto';
import {
  adminClient,
  createScratchDatabase,
  postgresAdminUrl,
  postgresAdminUrlFor,
  type ScratchDatabase,
} from '../../bench/postgres-admin.js';

export { adminClient, postgresAdminUrl, postgresAdminUrlFor };

/** A database of the test file's own; `drop` removes it, ending any session still in it. */
export type TestDatabase = ScratchDatabase;

export const createTestDatabase: (prefix: string) => Promise<TestDatabase> = createScratchDatabase;

/** A grant the admin runs for the role: `GRANT <grant> TO <role>`, in `database`. */
export interface RoleGrant {
  /** What comes between GRANT and TO, e.g. `SELECT ON ALL TABLES IN SCHEMA public`. */
  grant: string;
  /** Where the GRANT runs (schema and table grants live in one database). */
  database: string;
}

export interface TestRoleOptions {
  /** Role attributes besides LOGIN. Default none. */
  attributes?: ReadonlyArray<'SUPERUSER' | 'CREATEROLE' | 'CREATEDB'>;
  /** Roles it becomes a member of, e.g. `pg_read_server_files`. */
  memberships?: readonly string[];
  grants?: readonly RoleGrant[];
}

export interface TestRole {
  name: string;
  /** A URL for this role on `database`, with `?schema=` when a schema is given. */
  url(database: string, schema?: string): string;
  /** Drops what the role owns or was granted in each database it touched, then the role. */
  drop(): Promise<void>;
}

/**
 * A LOGIN role of its own, with a unique name and password, for tests that compare what different
 * rights can reach. Databases named in `grants` or in `url()` are remembered, as the role may own
 * objects or hold privileges there, which DROP ROLE refuses to leave dangling.
 */
export async function createTestRole(prefix: string, options: TestRoleOptions = {}): Promise<TestRole> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const touched = new Set<string>();
  const admin = await adminClient();
  try {
    const role = admin.escapeIdentifier(name);
    const attributes = (options.attributes ?? []).join(' ');
    await admin.query(`CREATE ROLE ${role} LOGIN ${attributes} PASSWORD ${admin.escapeLiteral(password)}`);
    for (const membership of options.memberships ?? []) {
      await admin.query(`GRANT ${admin.escapeIdentifier(membership)} TO ${role}`);
    }
  } finally {
    await admin.end();
  }
  for (const { grant, database } of options.grants ?? []) {
    touched.add(database);
    const client = await adminClient(database);
    try {
      await client.query(`GRANT ${grant} TO ${client.escapeIdentifier(name)}`);
    } finally {
      await client.end();
    }
  }
  return {
    name,
    url(database, schema) {
      touched.add(database);
      const url = new URL(postgresAdminUrl());
      url.username = name;
      url.password = password;
      url.pathname = `/${encodeURIComponent(database)}`;
      url.search = schema === undefined ? '' : `?schema=${encodeURIComponent(schema)}`;
      return url.toString();
    },
    async drop() {
      const client = await adminClient();
      try {
        const { rows } = await client.query<{ datname: string }>(
          'SELECT datname FROM pg_database WHERE datname = ANY($1::text[])',
          [[...touched]],
        );
        for (const { datname } of rows) await dropOwned(datname, name);
        await client.query(`DROP ROLE IF EXISTS ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * DROP OWNED drops the role's objects and revokes its privileges in one database (and on databases
 * themselves); REASSIGN first hands over what DROP OWNED leaves, such as a database the role created.
 */
async function dropOwned(database: string, role: string): Promise<void> {
  const client = await adminClient(database);
  try {
    const quoted = client.escapeIdentifier(role);
    await client.query(`REASSIGN OWNED BY ${quoted} TO CURRENT_USER`);
    await client.query(`DROP OWNED BY ${quoted}`);
  } catch (error) {
    // The role may already be gone (a test dropped it); nothing of it is left here then.
    if ((error as { code?: string }).code !== '42704') throw error;
  } finally {
    await client.end();
  }
}
