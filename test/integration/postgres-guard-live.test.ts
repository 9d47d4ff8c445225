/**
 * The PostgreSQL hostile list against a real server, through the connector, on two roles made by the test: a
 * SELECT-only role and a superuser. Every statement is refused on both, and afterwards every table, sequence,
 * large object and relation is as before. Controls show what the guard stands between: with the guard off the
 * superuser reads pg_authid's password hashes and the statements marked `reads` return their rows, while the
 * read-only role is refused by the server itself. The analysis queries run on the read-only role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryFailedError, SqlRejectedError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { PostgresDatabase } from '../../src/db/postgres/postgres-database.js';
import { cleanUp } from '../support/clean-up.js';
import {
  adminClient,
  createTestDatabase,
  createTestRole,
  type TestDatabase,
  type TestRole,
} from '../support/postgres.js';
import {
  POSTGRES_ALLOWED,
  POSTGRES_FIXTURE,
  POSTGRES_REFUSED,
  POSTGRES_SCHEMAS,
} from '../support/postgres-sql-cases.js';
import { LIMITS } from '../support/sample-databases.js';

const logger = createLogger({ level: 'silent' });
const [, ...extraSchemas] = POSTGRES_SCHEMAS;
let scratch: TestDatabase;
let readonly: TestRole;
let superuser: TestRole;
const opened: PostgresDatabase[] = [];

async function open(role: TestRole, guarded = true): Promise<PostgresDatabase> {
  const database = await PostgresDatabase.connect({
    name: 'shop',
    url: role.url(scratch.name),
    schemas: extraSchemas,
    limits: LIMITS,
    logger,
    ...(guarded ? {} : { guard: (sql: string) => ({ ok: true as const, sql }) }),
  });
  opened.push(database);
  return database;
}

/** Every relation with its kind, each table's rows, sequences' values and large objects, as one string. */
async function fingerprint(): Promise<string> {
  const admin = await adminClient(scratch.name);
  try {
    const { rows: relations } = await admin.query<{ name: string; kind: string }>(
      `SELECT format('%I.%I', n.nspname, c.relname) AS name, c.relkind AS kind FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') ORDER BY 1`,
    );
    const contents: Record<string, unknown> = {};
    for (const { name, kind } of relations) {
      if (kind === 'r' || kind === 'm') {
        contents[name] = (
          await admin.query(`SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS sum FROM ${name} t`)
        ).rows;
      } else if (kind === 'S') {
        contents[name] = (await admin.query(`SELECT last_value, is_called FROM ${name}`)).rows;
      }
    }
    const objects = (await admin.query('SELECT count(*)::int AS n FROM pg_largeobject_metadata')).rows;
    return JSON.stringify({ relations, contents, objects });
  } finally {
    await admin.end();
  }
}

beforeAll(async () => {
  scratch = await createTestDatabase('tally_guard');
  const admin = await adminClient(scratch.name);
  try {
    for (const statement of POSTGRES_FIXTURE) await admin.query(statement);
  } finally {
    await admin.end();
  }
  const on = (grant: string) => ({ grant, database: scratch.name });
  readonly = await createTestRole('tally_guard_ro', {
    grants: [
      on(`CONNECT ON DATABASE "${scratch.name}"`),
      ...POSTGRES_SCHEMAS.map((schema) => on(`USAGE ON SCHEMA ${schema}`)),
      ...POSTGRES_SCHEMAS.map((schema) => on(`SELECT ON ALL TABLES IN SCHEMA ${schema}`)),
    ],
  });
  superuser = await createTestRole('tally_guard_su', { attributes: ['SUPERUSER'] });
}, 120_000);

afterAll(() =>
  cleanUp(
    ...opened.map((database) => () => database.close()),
    () => readonly?.drop(),
    () => superuser?.drop(),
    () => scratch?.drop(),
  ),
);

describe('hostile SQL against a real PostgreSQL', () => {
  it('has at least 60 hostile cases and 20 analysis queries', () => {
    expect(POSTGRES_REFUSED.length).toBeGreaterThanOrEqual(60);
    expect(POSTGRES_ALLOWED.length).toBeGreaterThanOrEqual(20);
  });

  it.each([
    ['the read-only role', () => readonly],
    ['a superuser', () => superuser],
  ])(
    'refuses every statement on %s and leaves everything as it was',
    async (_, role) => {
      const database = await open(role());
      const before = await fingerprint();
      for (const [sql, reason] of POSTGRES_REFUSED) {
        const attempt = database.query(sql);
        await expect(attempt, sql).rejects.toBeInstanceOf(SqlRejectedError);
        await expect(attempt, sql).rejects.toThrow(reason);
      }
      expect(await fingerprint()).toBe(before);
    },
    120_000,
  );

  it('stands between the superuser and what it could read with the guard off', async () => {
    const unguarded = await open(superuser, false);
    const hashes = await unguarded.query('SELECT rolname, rolpassword FROM pg_authid WHERE rolpassword IS NOT NULL');
    expect(hashes.rows.length).toBeGreaterThan(0);
    expect(String(hashes.rows[0]?.[1])).toMatch(/^(SCRAM-SHA-256|md5)/);
    const reads = POSTGRES_REFUSED.filter(([, , , unguardedly]) => unguardedly === 'reads');
    expect(reads.length).toBeGreaterThanOrEqual(40);
    for (const [sql] of reads) {
      await expect(
        unguarded.query(sql).then((result) => result.columns.length),
        sql,
      ).resolves.toBeGreaterThan(0);
    }
  }, 120_000);

  it('leaves the read-only role refused by the server itself where the guard is off', async () => {
    const unguarded = await open(readonly, false);
    for (const sql of [
      'SELECT rolpassword FROM pg_authid',
      'SELECT * FROM other.secrets',
      "SELECT pg_read_file('PG_VERSION')",
    ]) {
      await expect(unguarded.query(sql), sql).rejects.toThrow(/permission denied/);
    }
    await expect(unguarded.query('DELETE FROM orders')).rejects.toBeInstanceOf(QueryFailedError);
  });

  it('runs every analysis query on the read-only role', async () => {
    const database = await open(readonly);
    for (const sql of POSTGRES_ALLOWED) {
      await expect(
        database.query(sql).then(() => 'ran'),
        sql,
      ).resolves.toBe('ran');
    }
  });
});
