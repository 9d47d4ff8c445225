/**
 * The start-up check of the database account, against real MariaDB accounts made for the test: a
 * SELECT-only account passes, broader ones are named grant by grant; tally warns, and with
 * TALLY_REQUIRE_READONLY=true (the default of `tally slack` and `tally discord`) the real CLI stops
 * with exit code 2 and one clear line.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/base/config.js';
import { LlmNotConfiguredError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { checkAccount } from '../../src/db/account-check.js';
import { createTally } from '../../src/wiring/create-tally.js';
import { containersOf } from '../support/docker.js';
import { adminConnection, createTestDatabase, mysqlAdminUrl, type TestDatabase } from '../support/mariadb.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const suffix = randomBytes(3).toString('hex');
const users = {
  readonly: `tally_ro_${suffix}`,
  writer: `tally_rw_${suffix}`,
  reader: `tally_all_${suffix}`,
  admin: `tally_proc_${suffix}`,
};
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
let database: TestDatabase;
let home: string;

function urlFor(user: string): string {
  const url = new URL(mysqlAdminUrl());
  url.username = user;
  url.password = PASSWORD;
  url.pathname = `/${database.name}`;
  return url.toString();
}

beforeAll(async () => {
  database = await createTestDatabase('tally_account');
  home = await mkdtemp(join(tmpdir(), 'tally-account-'));
  const admin = await adminConnection();
  try {
    for (const user of Object.values(users)) {
      await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${PASSWORD}'`);
    }
    await admin.query(`GRANT SELECT ON \`${database.name}\`.* TO '${users.readonly}'@'%'`);
    await admin.query(`GRANT SELECT, INSERT, DELETE ON \`${database.name}\`.* TO '${users.writer}'@'%'`);
    await admin.query(`GRANT SELECT ON *.* TO '${users.reader}'@'%'`);
    await admin.query(`GRANT SELECT ON \`${database.name}\`.* TO '${users.admin}'@'%'`);
    await admin.query(`GRANT PROCESS ON *.* TO '${users.admin}'@'%'`);
  } finally {
    await admin.end();
  }
});

afterAll(async () => {
  const admin = await adminConnection();
  for (const user of Object.values(users)) await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
  await admin.end();
  await database?.drop();
  if (home) await rm(home, { recursive: true, force: true });
});

const check = (user: string) => checkAccount({ name: database.name, url: urlFor(user) }, 'DATABASE_URL');

describe('the database account check', () => {
  it('passes a SELECT-only account and names what broader accounts can do', async () => {
    expect(await check(users.readonly)).toEqual([]);
    const writer = await check(users.writer);
    expect(writer).toEqual([
      expect.objectContaining({ problem: 'writes', variable: 'DATABASE_URL', grant: expect.stringMatching(/INSERT/) }),
    ]);
    expect((await check(users.reader)).map((finding) => finding.problem)).toEqual(['reads other schemas']);
    expect((await check(users.admin)).map((finding) => finding.problem)).toEqual(['administers']);
  });

  it('warns at start-up, naming the variable and the grant, and goes on when read-only is not required', async () => {
    const said: string[] = [];
    const config = loadConfig({
      TALLY_HOME: home,
      TALLY_INSTANCE: `account-${suffix}`,
      DATABASE_URL: urlFor(users.reader),
      TALLY_SANDBOX_POOL_SIZE: '0',
      LOG_LEVEL: 'silent',
    });
    const tally = await createTally({
      config,
      logger: createLogger({ level: 'silent' }),
      llm: { model: 'none', complete: () => Promise.reject(new LlmNotConfiguredError()) },
      post: async () => {},
      say: (line) => said.push(line),
    });
    await tally.close();
    expect(said).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warning: The ${database.name} account \\(DATABASE_URL\\) reads other schemas: GRANT SELECT ON \\*\\.\\* TO`,
        ),
      ),
    ]);
    expect(await containersOf(`account-${suffix}`)).toEqual([]);
  }, 120_000);

  it('stops tally slack with exit code 2 and one clear line for an account that can write', async () => {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TALLY_HOME: home,
      TALLY_INSTANCE: `account-${suffix}`,
      DATABASE_URL: urlFor(users.writer),
      SLACK_BOT_TOKEN: 'xoxb-unused',
      SLACK_APP_TOKEN: 'xapp-unused',
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      LOG_LEVEL: 'silent',
    };
    const failure = await run(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/main.ts', 'slack'], {
      cwd: ROOT,
      env,
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
        `^tally: The ${database.name} account \\(DATABASE_URL\\) writes: GRANT SELECT, INSERT, DELETE ON .* Use an account that can only SELECT from its schema, or set TALLY_REQUIRE_READONLY=false\\.$`,
      ),
    );
    expect(failure?.stderr).not.toContain(PASSWORD);
  }, 120_000);
});
