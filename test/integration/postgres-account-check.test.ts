/**
 * The start-up check of a PostgreSQL account, against real roles made for the test: a SELECT-only role passes;
 * each dangerous attribute, membership and privilege is named; and `tally slack` with a superuser URL stops with
 * exit code 2, one line and no password.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccount } from '../../src/db/account-check.js';
import { cleanUp } from '../support/clean-up.js';
import {
  adminClient,
  createTestDatabase,
  createTestRole,
  type TestDatabase,
  type TestRole,
  type TestRoleOptions,
} from '../support/postgres.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
let database: TestDatabase;
let home: string;
const roles: TestRole[] = [];

async function role(options: TestRoleOptions): Promise<TestRole> {
  const made = await createTestRole('tally_acct', {
    ...options,
    grants: [
      { grant: `CONNECT ON DATABASE "${database.name}"`, database: database.name },
      { grant: 'USAGE ON SCHEMA public', database: database.name },
      { grant: 'SELECT ON ALL TABLES IN SCHEMA public', database: database.name },
      ...(options.grants ?? []),
    ],
  });
  roles.push(made);
  return made;
}

beforeAll(async () => {
  database = await createTestDatabase('tally_acct');
  home = await mkdtemp(join(tmpdir(), 'tally-pg-account-'));
  const admin = await adminClient(database.name);
  try {
    await admin.query('CREATE TABLE orders (id int PRIMARY KEY, amount numeric(8,2))');
    await admin.query('CREATE SCHEMA archive; CREATE TABLE archive.old_orders (id int)');
  } finally {
    await admin.end();
  }
});

afterAll(() =>
  cleanUp(
    ...roles.map((made) => () => made.drop()),
    () => database?.drop(),
    () => home && rm(home, { recursive: true, force: true }),
  ),
);

const check = (made: TestRole, schemas?: string[]) =>
  checkAccount({ name: 'shop', url: made.url(database.name), ...(schemas ? { schemas } : {}) }, 'DATABASE_URL_SHOP');

describe('the PostgreSQL account check', () => {
  it('passes a role that can only SELECT from its schema', async () => {
    expect(await check(await role({}))).toEqual([]);
  });

  it('names each dangerous attribute and membership', async () => {
    const findings = await check(
      await role({
        attributes: ['CREATEROLE', 'CREATEDB'],
        memberships: ['pg_read_server_files', 'pg_write_server_files', 'pg_execute_server_program'],
      }),
    );
    expect(findings.map(({ problem, grant }) => `${problem}: ${grant}`).sort()).toEqual([
      'administers: the role has CREATEDB',
      'administers: the role has CREATEROLE',
      'administers: the role is a member of pg_read_server_files',
      'writes: the role is a member of pg_execute_server_program',
      'writes: the role is a member of pg_write_server_files',
    ]);
    expect(findings[0]).toMatchObject({ variable: 'DATABASE_URL_SHOP', database: 'shop' });
    for (const membership of ['pg_read_all_data', 'pg_read_all_settings', 'pg_signal_backend']) {
      expect(await check(await role({ memberships: [membership] }))).toContainEqual(
        expect.objectContaining({ problem: 'administers', grant: `the role is a member of ${membership}` }),
      );
    }
  });

  it('names privileges beyond SELECT and USAGE, and tables outside the schemas tally reads', async () => {
    const writer = await role({
      grants: [
        { grant: 'INSERT, DELETE ON orders', database: '' },
        { grant: 'CREATE ON SCHEMA public', database: '' },
      ].map((grant) => ({ ...grant, database: database.name })),
    });
    expect((await check(writer)).map(({ problem, grant }) => `${problem}: ${grant}`)).toEqual([
      'writes: CREATE on schema public (it can create tables and functions)',
      'writes: INSERT, DELETE ON public.orders',
    ]);
    const reader = await role({
      grants: [
        { grant: 'USAGE ON SCHEMA archive', database: database.name },
        { grant: 'SELECT ON archive.old_orders', database: database.name },
      ],
    });
    expect(await check(reader)).toEqual([
      expect.objectContaining({ problem: 'reads other schemas', grant: 'SELECT ON archive.old_orders' }),
    ]);
    expect(await check(reader, ['archive'])).toEqual([]);
  });

  it('calls a superuser what it is', async () => {
    const findings = await check(await role({ attributes: ['SUPERUSER'] }));
    expect(findings).toEqual([expect.objectContaining({ problem: 'administers', grant: 'the role has SUPERUSER' })]);
  });

  it('stops tally slack with exit code 2, one line and no password for a superuser URL', async () => {
    const superuser = await role({ attributes: ['SUPERUSER'] });
    const url = superuser.url(database.name);
    const password = decodeURIComponent(new URL(url).password);
    const failure = await run(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/main.ts', 'slack'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TALLY_HOME: home,
        TALLY_INSTANCE: 'pg-account',
        DATABASE_URL: url,
        SLACK_BOT_TOKEN: 'xoxb-unused',
        SLACK_APP_TOKEN: 'xapp-unused',
        LLM_BASE_URL: 'http://127.0.0.1:9/v1',
        LOG_LEVEL: 'silent',
      },
      timeout: 120_000,
    }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(2);
    const lines = (failure?.stderr ?? '').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^tally: The ${database.name} account \\(DATABASE_URL\\) administers: the role has SUPERUSER\\. Use an account .*TALLY_REQUIRE_READONLY=false\\.$`,
      ),
    );
    expect(failure?.stderr).not.toContain(password);
  }, 120_000);
});
