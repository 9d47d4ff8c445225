/**
 * The README's schedules example, read from the README itself, passes `tally schedules list` on the embedded
 * default (no DATABASE_URL: the demo database, named `telco`), as a newcomer would run it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { schedulesCommand } from '../../src/cli/schedules-command.js';

const ROOT = join(import.meta.dirname, '..', '..');
let home: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tally-readme-schedules-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

it('lists both schedules of the README example with their next due times', async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('# /etc/tally/schedules.yaml');
  expect(start).toBeGreaterThan(0);
  const example = readme.slice(start, readme.indexOf('```', start));
  const path = join(home, 'schedules.yaml');
  await writeFile(path, example);
  const out: string[] = [];
  const err: string[] = [];
  const code = await schedulesCommand(['list'], {
    env: { TALLY_HOME: home, TALLY_SCHEDULES: path, LOG_LEVEL: 'silent' },
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    now: () => Date.parse('2026-11-25T12:00:00Z'),
  });
  expect(err).toEqual([]);
  expect(code).toBe(0);
  expect(out.filter((line) => /^\S/.test(line)).map((line) => line.split(':')[0])).toEqual([
    'weekly-churn',
    'daily-consistency',
  ]);
  expect(out).toContain('  next: Mon 2026-11-30 09:00 (Europe/Berlin, GMT+1)');
  expect(out.join('\n')).toContain('Use the database telco.');
});
