/**
 * `tally eval` as a user runs it from a fresh clone, with no model configured: DABench's first 20
 * cases against the scripted oracle on embedded defaults, the run's files written, and two runs
 * compared. A bad argument is refused with exit code 2.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseResult, EvalSummary } from '../../src/eval/eval-case.js';
import { containersOf, requireSandboxImage } from '../support/docker.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const instance = `eval-cli-${randomBytes(4).toString('hex')}`;
let home: string;
let env: NodeJS.ProcessEnv;

const tally = (args: string[]) =>
  run(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/main.ts', ...args], { cwd: ROOT, env, timeout: 300_000 });

beforeAll(async () => {
  await requireSandboxImage();
  home = await mkdtemp(join(tmpdir(), 'tally-eval-cli-'));
  env = { ...process.env, TALLY_HOME: home, TALLY_INSTANCE: instance, TALLY_SANDBOX_POOL_SIZE: '0', LOG_LEVEL: 'warn' };
  for (const variable of ['LLM_BASE_URL', 'DATABASE_URL', 'REDIS_URL']) delete env[variable];
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  expect(await containersOf(instance)).toEqual([]);
});

describe('tally eval', () => {
  it('runs DABench cases 1-20 against the scripted oracle and writes results, summary and report', async () => {
    const out = join(home, 'run-a');
    const { stdout } = await tally([
      'eval',
      '--suite',
      'dabench',
      '--cases',
      '1-20',
      '--concurrency',
      '4',
      '--out',
      out,
    ]);
    expect(stdout).toContain('No LLM_BASE_URL is set: a scripted oracle that knows the labels stands in');
    expect(stdout).toMatch(/overall\s+20\s+100\.0%\s+100\.0%\s+100\.0%/);
    expect(stdout).toContain('gpt-4-0613 (ReAct) 78.72%');
    // The oracle's answers are grounded, so they carry no ⚠ mark and pass as published too.
    expect(stdout).toContain('as published (eval_closed_form.py): by question 100.00%');
    const summary = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')) as EvalSummary;
    expect(summary).toMatchObject({
      suite: 'dabench',
      model: 'scripted-oracle',
      overall: { cases: 20, byQuestion: 1 },
      published: { cases: 20, scored: 20, byQuestion: 1 },
    });
    const lines = (await readFile(join(out, 'results.jsonl'), 'utf8')).trim().split('\n');
    const results = lines.map((line) => JSON.parse(line) as CaseResult);
    expect(results).toHaveLength(20);
    expect(results.every((result) => result.correct && result.tokens.prompt > 0)).toBe(true);
    expect(results.every((result) => result.published?.correct)).toBe(true);
    expect(await readFile(join(out, 'report.html'), 'utf8')).toContain('id="accuracy"');

    await tally(['eval', '--suite', 'dabench', '--cases', '1-2', '--out', join(home, 'run-b')]);
    const compared = await tally(['eval', '--compare', out, join(home, 'run-b')]);
    expect(compared.stdout).toMatch(/overall/);
    expect(compared.stdout).toMatch(/Only in A[^\n]*\n?[^\n]*dabench-6/);
  }, 300_000);

  it('refuses a bad selection with exit code 2, naming the flag', async () => {
    const failure = await tally(['eval', '--suite', 'dabench', '--cases', '0-999']).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(/--cases 0-999: '0-999' is not a position or range within 1-257/);
  });
});
