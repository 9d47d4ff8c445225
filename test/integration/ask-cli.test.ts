/**
 * `tally ask` as a script or a person runs it: a child process (`tsx src/cli/main.ts ask …`) against the
 * scripted model server, the real sandbox and the telco demo database in SQLite. Each run must end
 * on its own: sections decided by --review, held cells by --approve, an answer printed, the report
 * exported to --out, and an exit code that says how it ended.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResult } from '../../src/ask/ask-result.js';
import { createLogger } from '../../src/base/logger.js';
import {
  callTool,
  fail,
  type ScriptContext,
  type ScriptStep,
  say,
  startScriptedModelServer,
  when,
} from '../../src/demo/scripted-model-server.js';
import { createStore } from '../../src/store/create-store.js';
import { loadTelco } from '../../telco_data/index.js';
import { containersOf, requireSandboxImage } from '../support/docker.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const instance = `ask-cli-${randomBytes(4).toString('hex')}`;
let home: string;
let db: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** Chat requests the model server received, and steps it had left. */
  modelCalls: number;
  unusedSteps: number;
}

/** Runs `tally ask …args` with `script` as the model; never throws on a non-zero exit. */
async function ask(args: string[], script: ScriptStep[], env: Record<string, string> = {}): Promise<Run> {
  const model = await startScriptedModelServer({ script });
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    TALLY_HOME: home,
    TALLY_INSTANCE: instance,
    TALLY_SANDBOX_POOL_SIZE: '0',
    LOG_LEVEL: 'warn',
    LLM_BASE_URL: model.url,
    ...env,
  };
  for (const variable of ['DATABASE_URL', 'REDIS_URL', 'TALLY_APPROVE']) {
    if (!(variable in env)) delete childEnv[variable];
  }
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, ['src/cli/main.ts', 'ask', ...args], {
      cwd: ROOT,
      env: childEnv,
      timeout: 150_000,
    });
    return { code: 0, stdout, stderr, modelCalls: model.chatRequests.length, unusedSteps: model.remainingSteps };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return {
      code: failed.code,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
      modelCalls: model.chatRequests.length,
      unusedSteps: model.remainingSteps,
    };
  } finally {
    await model.close();
  }
}

const last = (context: ScriptContext) => context.lastToolResult?.content ?? '';
/** The step after a review: what the model does once section `id` was accepted. */
const afterAccepting = (id: string, then: ScriptStep): ScriptStep =>
  when(
    (context) => last(context).includes(`The user accepted section ${id}`),
    then,
    `the model is told ${id} was accepted`,
  );

const COUNTS_SQL = `SELECT (SELECT COUNT(*) FROM user_churn) AS churn_rows,
  (SELECT COUNT(*) FROM user_demographics) AS demographics_rows`;
const CHURN_SQL = `SELECT p.Contract, c.Churn FROM user_payments p JOIN user_churn c ON c.customerID = p.customerID`;
const CHART_CODE = `import matplotlib.pyplot as plt
rates = customers.assign(churned=customers.Churn.eq("Yes")).groupby("Contract").churned.mean().sort_values()
rates.plot.barh(title="Churn rate by contract")
print("highest:", rates.index[-1])`;

/** The model counts rows and drafts a section, then charts churn by contract and drafts another, then answers. */
function twoSections(): ScriptStep[] {
  return [
    callTool('triage', { verdict: 'answerable' }),
    callTool('run_sql', { sql: COUNTS_SQL }),
    callTool('draft_section', { title: 'Row counts', stage: 'data quality', markdown: 'The tables differ in rows.' }),
    afterAccepting('s1', callTool('load_dataframe', { sql: CHURN_SQL, name: 'customers' })),
    callTool('run_python', { code: CHART_CODE }),
    (context) =>
      callTool('draft_section', {
        title: 'Churn by contract',
        stage: 'drivers',
        markdown: `Churn by contract: ${/highest: (.+)/.exec(last(context))?.[1] ?? '?'} churns most.`,
      }),
    afterAccepting('s2', say('Month-to-month contracts churn most; the report has both sections.')),
  ];
}

beforeAll(async () => {
  await requireSandboxImage();
  home = await mkdtemp(join(tmpdir(), 'tally-ask-cli-'));
  db = `sqlite:${join(home, 'telco.db')}`;
  await loadTelco({ target: db, rows: 1000 });
}, 120_000);

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  expect(await containersOf(instance)).toEqual([]);
});

describe('tally ask decides what a person would and always ends', () => {
  it('accepts both drafted sections by default, prints the answer and exports the report to --out', async () => {
    const out = join(home, 'out-accept');
    const run = await ask(['Which', 'contract', 'churns', 'most?', '--db', db, '--out', out], twoSections());
    expect(run.code, run.stderr).toBe(0);
    expect(run.unusedSteps).toBe(0);
    expect(run.stdout).toContain('you> Which contract churns most?');
    expect(run.stdout).toContain('ask> accept s1 (version 1) (--review accept)');
    expect(run.stdout).toContain("Accepted s1 'Row counts' (version 1): section 1 of the report.");
    expect(run.stdout).toContain("Accepted s2 'Churn by contract' (version 1): section 2 of the report.");
    expect(run.stdout).toContain('Month-to-month contracts churn most; the report has both sections.');
    // The closing block repeats the answer under the transcript.
    expect(run.stdout).toMatch(
      /── answered in [\d.]+ s \(5 tool calls, [\d,]+ tokens, exit 0\) ──\nMonth-to-month contracts churn most; the report has both sections\.\nsections: s1 'Row counts' accepted, s2 'Churn by contract' accepted\nfiles:\n/,
    );
    expect(await readFile(join(out, 'report.md'), 'utf8')).toContain('](figures/s2-1.png)');
    expect(existsSync(join(out, 'figures', 's2-1.png'))).toBe(true);
    const html = await readFile(join(out, 'report.html'), 'utf8');
    expect(html.indexOf('Churn by contract')).toBeGreaterThan(html.indexOf('Row counts'));
    const notebook = JSON.parse(await readFile(join(out, 'report.ipynb'), 'utf8')) as { nbformat: number };
    expect(notebook.nbformat).toBe(4);
    const chart = /\[chart\] Churn rate by contract: (\S+\.png)/.exec(run.stdout)?.[1] ?? '';
    expect(chart.startsWith(out)).toBe(true);
    expect((await readFile(chart)).subarray(1, 4).toString()).toBe('PNG');
  }, 180_000);

  it('prints one JSON object with --json: the answer, the sections and their status, the files', async () => {
    const out = join(home, 'out-json');
    const run = await ask(['Which contract churns most?', '--json', '--out', out], twoSections());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const result = JSON.parse(run.stdout) as AskResult;
    expect(result).toMatchObject({
      outcome: 'answered',
      exitCode: 0,
      request: 'Which contract churns most?',
      answer: 'Month-to-month contracts churn most; the report has both sections.',
      sections: [
        { id: 's1', title: 'Row counts', stage: 'data quality', status: 'accepted', version: 1 },
        { id: 's2', title: 'Churn by contract', stage: 'drivers', status: 'accepted', version: 1 },
      ],
      toolCalls: 5,
      failedToolCalls: 0,
      modelCalls: run.modelCalls,
    });
    for (const name of ['report.md', 'report.html', 'report.ipynb', join('figures', 's2-1.png')]) {
      expect(result.files).toContain(join(out, name));
    }
    expect(result.files.filter((file) => file.endsWith('.png')).length).toBeGreaterThanOrEqual(2);
    expect(result.tokens.prompt).toBeGreaterThan(0);
    expect(result.elapsedMs).toBeGreaterThan(0);
    // The transcript went to stderr, so a script reads nothing but the object.
    expect(run.stderr).toContain('you> Which contract churns most?');
  }, 180_000);

  it('discards every draft with --review discard and still answers, exporting nothing', async () => {
    const out = join(home, 'out-discard');
    const run = await ask(
      ['Which contract churns most?', '--review', 'discard', '--out', out, '--json'],
      [
        ...twoSections().slice(0, 3),
        when(
          (context) => last(context).includes('The user discarded section s1'),
          say('Nothing went into the report.'),
          'the model is told s1 was discarded',
        ),
      ],
    );
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as AskResult;
    expect(result).toMatchObject({
      outcome: 'answered',
      answer: 'Nothing went into the report.',
      sections: [{ id: 's1', status: 'discarded' }],
      files: [],
    });
    expect(run.stderr).toContain('ask> discard s1 (version 1) (--review discard)');
    expect(run.stderr).toContain(`No section was accepted, so no report was exported to ${out}.`);
    expect(existsSync(join(out, 'report.md'))).toBe(false);
  }, 180_000);

  it('stops after the first draft with --review stop, leaving it saved and undecided', async () => {
    const script = twoSections().slice(0, 3);
    const run = await ask(['Which contract churns most?', '--review', 'stop'], script);
    expect(run.code, run.stderr).toBe(0);
    expect(run.unusedSteps).toBe(0);
    expect(run.stdout).toContain('── review s1 v1 [data quality]: Row counts ──');
    expect(run.stdout).not.toContain('Accepted s1');
    expect(run.stdout).toContain(
      "Stopped at the first draft (--review stop): section s1 'Row counts' (version 1) is saved undecided.",
    );
    expect(run.stdout).toContain('run the ask again with --review accept');
    const thread = /An ask runs in its own thread \((console:local:ask-\d+)\)/.exec(run.stdout)?.[1] ?? '';
    const store = await createStore({ sqlitePath: join(home, 'state.db'), logger: createLogger({ level: 'silent' }) });
    try {
      const report = await store.get<{ sections: Array<{ id: string; status: string }> }>(`report:${thread}`);
      expect(report?.sections).toEqual([expect.objectContaining({ id: 's1', status: 'draft' })]);
    } finally {
      await store.close();
    }
  }, 180_000);
});

describe('tally ask says how it ended with its exit code', () => {
  it('shares the files given with --file with the question, and exits 2 naming a file that is not there', async () => {
    const data = join(home, 'targets.csv');
    await writeFile(data, 'region,target\nnorth,12\nsouth,30\n');
    const run = await ask(
      ['What is the total target?', '--file', data, '--db', db],
      [
        callTool('run_python', {
          code: "import pandas as pd\nprint('total', pd.read_csv('/inputs/uploads/targets.csv').target.sum())",
        }),
        (context) => say(`The total target is ${/total (\d+)/.exec(last(context))?.[1] ?? '?'}.`),
      ],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('The total target is 42.');
    expect(run.unusedSteps).toBe(0);

    const missing = await ask(['q', '--file', join(home, 'nope.csv'), '--db', db], []);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`tally ask: --file: there is no file at ${join(home, 'nope.csv')}\n`);
    expect(missing.modelCalls).toBe(0);
  }, 180_000);

  it('exits 1 when the agent gives up after three failing cells, saying what it tried', async () => {
    const failing = callTool('run_python', { code: 'customers_by_region.describe()' });
    const run = await ask(
      ['Describe customers by region'],
      [callTool('triage', { verdict: 'answerable' }), failing, failing, failing],
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.unusedSteps).toBe(0);
    expect(run.stdout).toContain("NameError: name 'customers_by_region' is not defined");
    expect(run.stderr).toContain('I gave up on this step after 3 failed attempts.');
    expect(run.stdout).toMatch(/── failed in [\d.]+ s \(3 tool calls/);
  }, 180_000);

  it('exits 1 when the model fails, with its error', async () => {
    const run = await ask(
      ['How many customers churned?', '--json'],
      [callTool('triage', { verdict: 'answerable' }), fail(400, 'This model does not exist')],
    );
    expect(run.code, run.stderr).toBe(1);
    const result = JSON.parse(run.stdout) as AskResult;
    expect(result.outcome).toBe('failed');
    expect(result.message).toMatch(/This model does not exist/);
  }, 180_000);

  it('exits 3 when triage finds the question out of scope', async () => {
    const run = await ask(
      ['What did customers say in support calls?'],
      [callTool('triage', { verdict: 'out_of_scope', reason: 'there is no call-centre data' })],
    );
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr.trim()).toBe("I can't answer that from the data I have: there is no call-centre data.");
    expect(run.stdout).toMatch(/── out of scope in [\d.]+ s/);
  }, 180_000);

  it('exits 2 with the question printed when triage asks one back', async () => {
    const run = await ask(
      ['How are we doing?'],
      [callTool('triage', { verdict: 'ambiguous', question: 'Doing on what?', choices: ['churn', 'revenue'] })],
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toContain('? Doing on what?');
    expect(run.stderr).toContain(
      'The agent asks: Doing on what? (churn / revenue). An ask cannot answer questions: ask again with the answer in the question, or use tally chat.',
    );
  }, 180_000);

  it.each([
    [
      ['How many customers?', '--db', 'oracle://somewhere/telco'],
      /^tally ask: --db oracle:\/\/somewhere\/telco: use mysql:\/\/user:password@host:port\/database, postgres:\/\/user:password@host:port\/database\[\?schema=name\] or sqlite:path\/to\/file\.db$/,
    ],
    [
      ['How many customers?', '--db', 'postgres://tally:secret@127.0.0.1:1/telco_db'],
      /^tally ask: --db postgres:\/\/tally:\*\*\*@127\.0\.0\.1:1\/telco_db: Database 'telco_db' cannot be reached: .*Check DATABASE_URL/,
    ],
    [
      ['How many customers?', '--db', 'mysql://tally:secret@127.0.0.1:1/telco_db'],
      /^tally ask: --db mysql:\/\/tally:\*\*\*@127\.0\.0\.1:1\/telco_db: Database 'telco_db' cannot be reached: .*Check DATABASE_URL/,
    ],
    [['How many customers?', '--verbose'], /^tally ask: unknown flag --verbose \(tally ask --help lists the flags\)$/],
    [['How many customers?', '--review', 'maybe'], /^tally ask: --review maybe: use accept, discard, stop/],
  ])(
    'exits 2 with one line on stderr for bad input: %j',
    async (args, line) => {
      const run = await ask(args, []);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr.trimEnd()).toMatch(line);
      expect(run.stderr).not.toContain('secret');
      expect(run.stdout).toBe('');
      expect(run.modelCalls).toBe(0);
    },
    60_000,
  );
});

describe('tally ask with cells held for approval', () => {
  const held = () => [
    callTool('triage', { verdict: 'answerable' }),
    callTool('run_python', { code: 'print("customers:", 6 * 7)' }),
  ];

  it('stops with what to do when a cell is held and --approve is not given', async () => {
    const run = await ask(['Count them'], held(), { TALLY_APPROVE: 'always' });
    expect(run.code, run.stderr).toBe(2);
    expect(run.unusedSteps).toBe(0);
    expect(run.stdout).toContain('── approve this python cell? (approval mode is always) ──');
    expect(run.stderr).toContain(
      'A python cell is held for approval (approval mode is always) and an ask cannot wait for a reply. Run again with --approve run',
    );
    expect(run.stdout).not.toContain('customers: 42');
  }, 180_000);

  it('runs held cells with --approve run and answers', async () => {
    const script = [...held(), (context: ScriptContext) => say(`Counted: ${last(context).trim()}`)];
    const run = await ask(['Count them', '--approve', 'run'], script, { TALLY_APPROVE: 'always' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('ask> run the held python cell (--approve run)');
    expect(run.stdout).toContain('Counted: stdout:\ncustomers: 42');
  }, 180_000);
});
