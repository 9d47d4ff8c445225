/**
 * The telco loader's PostgreSQL specifics against a real server (test/support/postgres.ts): tally's
 * read-only role can read and do nothing else, keeps reading when the loader re-runs without it, is
 * reset on a re-run, and its password never reaches the server as text; a bad URL is one clear
 * TelcoError. Loading itself is checked in telco-loader.test.ts, beside SQLite and MariaDB.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadonlyRole } from '../../telco_data/create-readonly-role.js';
import { loadTelco } from '../../telco_data/load-telco.js';
import { matchesScramVerifier } from '../../telco_data/scram-verifier.js';
import { TELCO_TABLES } from '../../telco_data/telco-tables.js';
import { cleanUp } from '../support/clean-up.js';
import { adminClient, createTestDatabase, postgresAdminUrl, type TestDatabase } from '../support/postgres.js';

const SCHEMA = 'telco';
const role = `tally_ro_${randomBytes(4).toString('hex')}`;
// Not plain ASCII: the verifier has to be prepared the way clients prepare the password.
const password = `pw-${randomBytes(8).toString('hex')}-Cafe\u0301`;
let database: TestDatabase;
let url: string;

beforeAll(async () => {
  database = await createTestDatabase('telco_ro');
  url = `${database.url}?schema=${SCHEMA}`;
  await loadTelco({ url, readonlyUser: { name: role, password } });
});

afterAll(() =>
  cleanUp(
    () => database?.drop(),
    () => withAdmin(async (admin) => void (await admin.query(`DROP ROLE IF EXISTS ${admin.escapeIdentifier(role)}`))),
  ),
);

async function withAdmin<T>(use: (client: pg.Client) => Promise<T>, name?: string): Promise<T> {
  const client = await adminClient(name);
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** A session as the read-only role (the test server may trust local logins: the password is checked below). */
async function asRole<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const roleUrl = new URL(database.url);
  roleUrl.username = role;
  roleUrl.password = password;
  const client = new pg.Client({ connectionString: roleUrl.toString() });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

const count = async (client: pg.Client, table: string): Promise<number> =>
  Number((await client.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${SCHEMA}.${table}`)).rows[0]?.n);

/** Everything the role holds, as the catalogs say: privileges per object, attributes, memberships. */
const holdings = () =>
  withAdmin(async (admin) => {
    const query = async (sql: string) => (await admin.query(sql, [role])).rows;
    return {
      database: await query(`SELECT d.datname AS name, a.privilege_type AS privilege FROM pg_database d,
        aclexplode(d.datacl) a WHERE a.grantee = $1::regrole ORDER BY 1, 2`),
      schemas: await query(`SELECT n.nspname AS name, a.privilege_type AS privilege FROM pg_namespace n,
        aclexplode(n.nspacl) a WHERE a.grantee = $1::regrole ORDER BY 1, 2`),
      tables: await query(`SELECT c.relname AS name, a.privilege_type AS privilege FROM pg_class c,
        aclexplode(c.relacl) a WHERE a.grantee = $1::regrole ORDER BY 1, 2`),
      attributes: await query(`SELECT rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls
        FROM pg_roles WHERE rolname = $1`),
      memberships: await query('SELECT roleid::regrole::text FROM pg_auth_members WHERE member = $1::regrole'),
    };
  }, database.name);

const readOnly = () => ({
  database: [{ name: database.name, privilege: 'CONNECT' }],
  schemas: [{ name: SCHEMA, privilege: 'USAGE' }],
  tables: TELCO_TABLES.map((spec) => ({ name: spec.name, privilege: 'SELECT' })).sort((left, right) =>
    left.name.localeCompare(right.name),
  ),
  attributes: [
    {
      rolcanlogin: true,
      rolsuper: false,
      rolcreatedb: false,
      rolcreaterole: false,
      rolreplication: false,
      rolbypassrls: false,
    },
  ],
  memberships: [],
});

describe('the read-only PostgreSQL role for tally', () => {
  it('can SELECT and cannot INSERT, UPDATE, DELETE, TRUNCATE, DROP or CREATE', async () => {
    await asRole(async (client) => {
      expect(await count(client, 'user_churn_new')).toBe(1409);
      const denied = [
        `INSERT INTO ${SCHEMA}.user_churn (customerID, Churn) VALUES ('0000-AAAAA', 'No')`,
        `UPDATE ${SCHEMA}.user_churn SET Churn = 'No'`,
        `DELETE FROM ${SCHEMA}.user_churn`,
        `TRUNCATE ${SCHEMA}.user_churn`,
        `DROP TABLE ${SCHEMA}.user_churn`,
        `ALTER TABLE ${SCHEMA}.user_churn ADD COLUMN extra int`,
        `CREATE TABLE ${SCHEMA}.extra (id int)`,
        'CREATE SCHEMA extra',
        'CREATE DATABASE tally_ro_should_not_exist',
        'SELECT COUNT(*) FROM pg_authid',
      ];
      for (const sql of denied) {
        // insufficient_privilege
        await expect(client.query(sql), sql).rejects.toMatchObject({ code: '42501' });
      }
      expect(await count(client, 'user_churn')).toBe(5684);
    });
    expect(await holdings()).toEqual(readOnly());
  });

  it('keeps reading when the loader re-runs without --readonly-user', async () => {
    await loadTelco({ url });
    await asRole(async (client) => expect(await count(client, 'user_payments_new')).toBe(1409));
    expect(await holdings()).toEqual(readOnly());
  });

  it('resets the password and strips extra rights, attributes and memberships on a re-run', async () => {
    await withAdmin(async (admin) => {
      const quoted = admin.escapeIdentifier(role);
      await admin.query(`ALTER ROLE ${quoted} CREATEDB CREATEROLE`);
      await admin.query(`GRANT pg_read_server_files TO ${quoted}`);
      await admin.query(`GRANT INSERT, DELETE ON ALL TABLES IN SCHEMA ${SCHEMA} TO ${quoted}`);
      await admin.query(`GRANT CREATE ON SCHEMA ${SCHEMA} TO ${quoted}`);
      await admin.query(`GRANT CREATE, TEMPORARY ON DATABASE ${admin.escapeIdentifier(database.name)} TO ${quoted}`);
    }, database.name);
    expect(await holdings()).not.toEqual(readOnly());

    await createReadonlyRole(url, { name: role, password: `${password}-2` });
    expect(await holdings()).toEqual(readOnly());
    await asRole(async (client) => {
      await expect(client.query(`DELETE FROM ${SCHEMA}.user_churn`)).rejects.toMatchObject({ code: '42501' });
    });
    // A login proves nothing where the server trusts local connections: check what it stored.
    const stored = await withAdmin(
      async (admin) =>
        (await admin.query<{ rolpassword: string }>('SELECT rolpassword FROM pg_authid WHERE rolname = $1', [role]))
          .rows[0]?.rolpassword ?? '',
    );
    expect(stored).toMatch(/^SCRAM-SHA-256\$/);
    expect(matchesScramVerifier(stored, `${password}-2`)).toBe(true);
    expect(matchesScramVerifier(stored, password)).toBe(false);
  });

  it('makes the verifier the server itself makes from the password', async () => {
    const probe = `tally_scram_${randomBytes(4).toString('hex')}`;
    await withAdmin(async (admin) => {
      try {
        // The server computes this one from the text, with its own SASLprep.
        await admin.query(`CREATE ROLE ${probe} PASSWORD ${admin.escapeLiteral(password)}`);
        const { rows } = await admin.query<{ rolpassword: string }>(
          'SELECT rolpassword FROM pg_authid WHERE rolname = $1',
          [probe],
        );
        expect(matchesScramVerifier(rows[0]?.rolpassword ?? '', password)).toBe(true);
        expect(matchesScramVerifier(rows[0]?.rolpassword ?? '', `${password}x`)).toBe(false);
      } finally {
        await admin.query(`DROP ROLE IF EXISTS ${probe}`);
      }
    });
  });
});

describe('a PostgreSQL URL the loader cannot use', () => {
  it('is one TelcoError naming the flag that gave it', async () => {
    await expect(loadTelco({ url: 'postgres://postgres@127.0.0.1:1/telco_db' })).rejects.toMatchObject({
      code: 'TELCO_DATABASE_UNREACHABLE',
      message: expect.stringMatching(/^--url: no PostgreSQL server answers at 127\.0\.0\.1:1 \(ECONNREFUSED\)/),
    });
    await expect(loadTelco({ target: 'postgresql://postgres@127.0.0.1:1/telco_db' })).rejects.toMatchObject({
      message: expect.stringMatching(/^--target: no PostgreSQL server answers/),
    });

    const stranger = new URL(postgresAdminUrl());
    stranger.username = `tally_nobody_${randomBytes(4).toString('hex')}`;
    stranger.password = 'not-the-password';
    stranger.pathname = `/${database.name}`;
    const refused = await loadTelco({ url: stranger.toString() }).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'TELCO_DATABASE_REFUSED',
      message: expect.stringMatching(/^--url: .* refused the login of user 'tally_nobody_\w+'.*fix the user/),
    });
    expect(String((refused as Error).message)).not.toContain('not-the-password');
  });

  it('is refused before anything is written when a name is unusable', async () => {
    const before = await withAdmin(
      async (admin) => (await admin.query('SELECT COUNT(*) AS n FROM telco.user_churn')).rows[0]?.n,
      database.name,
    );
    await expect(loadTelco({ url: `${database.url}?schema=pg_temp` })).rejects.toMatchObject({
      code: 'TELCO_ARGUMENT_INVALID',
      message: expect.stringMatching(/^--url: schema name 'pg_temp'/),
    });
    await expect(
      loadTelco({ url, rows: 10, readonlyUser: { name: 'pg_monitor', password: 'x' } }),
    ).rejects.toMatchObject({ code: 'TELCO_ARGUMENT_INVALID', message: expect.stringMatching(/^--readonly-user: /) });
    const after = await withAdmin(
      async (admin) => (await admin.query('SELECT COUNT(*) AS n FROM telco.user_churn')).rows[0]?.n,
      database.name,
    );
    expect(after).toBe(before);
  });
});
