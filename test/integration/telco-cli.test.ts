/**
 * The loader's command line as a person runs it: the report on success, and one line naming the
 * flag to fix (and a non-zero exit) on a bad flag or a server that does not answer or refuses.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminConnection, createTestDatabase, mysqlAdminUrl, type TestDatabase } from '../support/mariadb.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function load(args: string[], cwd: string): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, [join(ROOT, 'telco_data', 'load.ts'), ...args], {
      cwd,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

let folder: string;
let database: TestDatabase;
const user = `tally_ro_${randomBytes(4).toString('hex')}`;
const password = `cli-${randomBytes(8).toString('hex')}`;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-telco-cli-'));
  database = await createTestDatabase('telco_cli');
});

afterAll(async () => {
  await database?.drop();
  const admin = await adminConnection();
  await admin.query('DROP USER IF EXISTS ?@?, ?@?', [user, '%', user, 'localhost']);
  await admin.end();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('tsx telco_data/load.ts', () => {
  it('loads SQLite relative to the working directory, creating folders, and prints the report', async () => {
    const run = await load(['--target', 'sqlite:out/nested/telco.db', '--rows', '500', '--seed', '3'], folder);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`telco_db loaded into SQLite sqlite:${join(folder, 'out/nested/telco.db')}`);
    expect(run.stdout).toContain('source: generated 500 customers (seed 3); split (seed 3): 400 train, 100 test');
    expect(run.stdout).toMatch(/user_demographics\s+380 {2}\(train, damaged\)/);
    expect(run.stdout).toMatch(/user_churn_new\s+100 {2}\(test, clean\)/);
    expect(run.stdout).toContain("user_demographics: 20 customers' rows deleted");
  });

  it('loads MariaDB with the read-only user and never prints its password', async () => {
    const run = await load(
      ['--target', database.url, '--readonly-user', user, '--readonly-password', password],
      folder,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/user_payments\s+5634 {2}\(train, damaged\)/);
    expect(run.stdout).toContain(
      `read-only user: '${user}'@'%' and '${user}'@'localhost' with SELECT on ${database.name}.* only`,
    );
    expect(run.stdout + run.stderr).not.toContain(password);
  });

  it('rejects bad arguments with one line naming the flag, exit code 2', async () => {
    const cases: Array<[string[], string]> = [
      [[], '--url: is required'],
      [['--target', 'sqlite:x.db', '--rows', 'lots'], "--rows: expected a whole number, got 'lots'"],
      [['--target', 'oracle://db/telco'], '--target:'],
      [['--url', 'sqlite:a.db', '--target', 'sqlite:b.db'], '--url: give --url or --target'],
      [['--target', 'sqlite:x.db', '--frobnicate'], '--frobnicate'],
      [['--target', 'sqlite:x.db', '--readonly-user', 'ro', '--readonly-password', 'pw'], '--readonly-user:'],
      [['--target', 'sqlite:x.db', '--csv', 'missing.csv'], '--csv: cannot read missing.csv'],
    ];
    for (const [args, message] of cases) {
      const run = await load(args, folder);
      expect(run.code, args.join(' ')).toBe(message.startsWith('--csv') ? 1 : 2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
      expect(run.stderr).toContain(message);
    }
  });

  it('says which flag to fix when no server answers or the login is refused, exit code 1', async () => {
    const unreachable = await load(['--target', 'mysql://root@127.0.0.1:1/telco_db'], folder);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(unreachable.stderr).toContain('--target: no MySQL/MariaDB server answers at 127.0.0.1:1 (ECONNREFUSED)');

    const wrong = new URL(mysqlAdminUrl());
    wrong.password = 'not-the-password';
    wrong.pathname = `/${database.name}`;
    const refused = await load(['--target', wrong.toString()], folder);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /--target: .* refused the login of user '.+'; fix the user and password in --target/,
    );
    expect(refused.stderr).not.toContain('not-the-password');
  });
});
