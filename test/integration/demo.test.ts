/** The README's first command, as a user runs it (minus set-up): `tally demo` on embedded defaults. */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, say, startScriptedModelServer } from '../../src/demo/scripted-model-server.js';
import { containersOf, requireSandboxImage } from '../support/docker.js';
import { validateChatExampleLine, validatePreferenceLine } from '../support/fine-tuning-format.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
let home: string;
const instance = `demo-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  await requireSandboxImage();
  home = await mkdtemp(join(tmpdir(), 'tally-demo-'));
});
afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  expect(await containersOf(instance)).toEqual([]);
});

describe('tally demo', () => {
  it('builds the demo database, runs the analysis, has it reviewed and exports the report', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, TALLY_HOME: home, TALLY_INSTANCE: instance, LOG_LEVEL: 'warn' };
    for (const variable of ['LLM_BASE_URL', 'DATABASE_URL', 'REDIS_URL']) delete env[variable];
    const { stdout } = await run(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/main.ts', 'demo'], {
      cwd: ROOT,
      env,
      timeout: 120_000,
    });
    expect(stdout).toContain('No LLM_BASE_URL is set: a recorded script stands in for the model');
    expect(stdout).toContain(`building the demo database sqlite:${join(home, 'telco.db')}`);
    expect(stdout).toMatch(/Rows per train table: demographics 5352, services 5734, payments 5634, churn 5684/);
    // The turn's progress as plain lines (stdout is a pipe): the plan once, its steps, each tool step.
    expect(stdout.match(/^Plan:$/gm)).toHaveLength(1);
    expect(stdout).toMatch(/^▸ Step 3 of 3: Compute churn by contract/m);
    // A long step shows its meter in between (the first extract waits for the kernel's analysis stack).
    expect(stdout).toMatch(
      /^… Load customers\n(?: {2}… Load customers: .*\n)*✓ Load customers \(5,634 rows\) \(\d+\.?\d*s\)$/m,
    );
    expect(stdout).not.toContain(String.fromCharCode(27));
    const rate = (contract: string) => Number(new RegExp(`${contract}: (\\d+\\.\\d)%`).exec(stdout)?.[1]);
    expect(rate('Month-to-month')).toBeGreaterThan(rate('One year'));
    expect(rate('One year')).toBeGreaterThan(rate('Two year'));
    const chart = /\[chart\] Churn rate by contract \(telco_db train tables\): (\S+\.png)/.exec(stdout)?.[1] ?? '';
    expect(existsSync(chart)).toBe(true);
    // The chart is saved once: the review of its section names it instead of saving it again.
    expect(stdout.match(/^\[chart\] /gm)).toHaveLength(1);
    expect(stdout).toContain("Chart above: 'Churn rate by contract");
    expect((await readFile(chart)).subarray(1, 4).toString()).toBe('PNG');
    // The reviewed report: the first section revised with the feedback, both accepted, exported.
    expect(stdout).toMatch(/review s1 v2 \[data quality\]: Table consistency/);
    expect(stdout).toMatch(/Customers without demographics: churn without demographics \d+/);
    expect(stdout).toContain("Accepted s2 'Churn by contract' (version 1): section 2 of the report.");
    const folder = join(home, 'demo', 'report');
    const html = await readFile(join(folder, 'report.html'), 'utf8');
    expect(html.indexOf('Churn by contract')).toBeGreaterThan(html.indexOf('Table consistency'));
    expect(html).toContain('src="data:image/png;base64,');
    const notebook = JSON.parse(await readFile(join(folder, 'report.ipynb'), 'utf8')) as { nbformat: number };
    expect(notebook.nbformat).toBe(4);
    expect(await readFile(join(folder, 'report.md'), 'utf8')).toContain('](figures/s2-1.png)');
    expect(existsSync(join(folder, 'figures', 's2-1.png'))).toBe(true);
  });

  it('answers one question with ask, reading the database given by --db and saving charts to --out', async () => {
    const model = await startScriptedModelServer({
      script: [
        callTool('triage', { verdict: 'answerable' }),
        callTool('run_python', { code: 'import matplotlib.pyplot as plt\nplt.plot([1, 2])' }),
        callTool('run_sql', { sql: 'SELECT COUNT(*) AS customers FROM user_payments_new' }),
        (context) => say(`There are ${context.lastToolResult?.content.split('\n')[1]?.trim()} test customers.`),
      ],
    });
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, TALLY_HOME: home, TALLY_INSTANCE: instance, LOG_LEVEL: 'warn' };
      env.LLM_BASE_URL = model.url;
      const out = join(home, 'ask-charts');
      const db = `sqlite:${join(home, 'telco.db')}`; // built by the demo above
      const { stdout } = await run(
        join(ROOT, 'node_modules', '.bin', 'tsx'),
        ['src/cli/main.ts', 'ask', 'How', 'many', 'test', 'customers?', '--db', db, '--out', out],
        { cwd: ROOT, env, timeout: 120_000 },
      );
      expect(stdout).toContain('you> How many test customers?');
      expect(stdout).toContain('There are 1409 test customers.');
      expect(stdout).toContain(`[chart] Figure 1: ${join(out, 'chart-1.png')}`);
      expect(existsSync(join(out, 'chart-1.png'))).toBe(true);
      expect(JSON.stringify(model.chatRequests[0]?.body?.messages)).toContain('How many test customers?');
    } finally {
      await model.close();
    }
  });

  it("exports the demo's reviewed work as fine-tuning data with export-training", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, TALLY_HOME: home, TALLY_INSTANCE: instance, LOG_LEVEL: 'warn' };
    delete env.REDIS_URL;
    const out = join(home, 'training', 'tally.jsonl');
    const { stdout } = await run(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['src/cli/main.ts', 'export-training', '--out', out],
      {
        cwd: ROOT,
        env,
        timeout: 60_000,
      },
    );
    expect(stdout).toContain(`2 examples from 1 sessions -> ${out}`);
    expect(stdout).toContain(`1 preference pairs -> ${join(home, 'training', 'tally.preferences.jsonl')}`);
    const examples = (await readFile(out, 'utf8')).trim().split('\n');
    for (const line of examples) expect(validateChatExampleLine(line)).toEqual([]);
    const pair = (await readFile(join(home, 'training', 'tally.preferences.jsonl'), 'utf8')).trim();
    expect(validatePreferenceLine(pair)).toEqual([]);
    expect(pair).toContain('Customers without demographics'); // the accepted revision is preferred
  });
});
