/**
 * The DABench harness end to end with a scripted oracle through the real `openai` SDK: each case's
 * CSV is shared into a fresh thread, the real router, agent, sandbox and tools run, and the answer is
 * scored the benchmark's way. Right answers (printed by a cell first, so every figure is grounded)
 * score 20/20, wrong numbers 0/20, an omitted part gets the benchmark's partial credit; answers
 * stated with no cell behind them are posted marked ⚠ and still score. For five cases the oracle
 * computes its answer with pandas in the sandbox from the shared file, so the data path is proven,
 * not only the scorer. A case over its token or time budget is stopped and reported, and the run
 * goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  type ScriptContext,
  type ScriptedModelServer,
  type ScriptStep,
  say,
  slow,
} from '../../src/demo/scripted-model-server.js';
import { answerFromLabels, dabenchOracle, labelledAnswer, type OracleAnswer } from '../../src/eval/dabench-oracle.js';
import { type DabenchItem, dabenchCases, loadDabench, selectCases } from '../../src/eval/dabench-suite.js';
import type { CaseResult } from '../../src/eval/eval-case.js';
import type { EvalHarness, EvalRunOptions } from '../../src/eval/eval-harness.js';
import { summariseEval } from '../../src/eval/summarise-eval.js';
import { repeatedPrefixShare } from '../../src/eval/token-figures.js';
import { type EvalFixture, startEvalFixture } from '../support/eval-fixture.js';

/** Pandas the oracle runs in the sandbox for five cases, printing the values in label order. */
const COMPUTED: Record<number, string> = {
  0: "import pandas as pd\ndf = pd.read_csv('/inputs/uploads/test_ave.csv')\nprint(f\"{df['Fare'].mean():.2f}\")",
  9: "import pandas as pd\ndf = pd.read_csv('/inputs/uploads/GODREJIND.csv')\nprint(f\"{df['Close Price'].mean():.2f}\")",
  14: [
    'import pandas as pd',
    "df = pd.read_csv('/inputs/uploads/GODREJIND.csv')",
    "r = df['High Price'] - df['Low Price']",
    'print(f"{r.mean():.2f} {r.std():.2f} {r.median():.2f}")',
  ].join('\n'),
  24: "import pandas as pd\ndf = pd.read_csv('/inputs/uploads/insurance.csv')\nprint(f\"{df['age'].mean():.2f}\")",
  26: "import pandas as pd\ndf = pd.read_csv('/inputs/uploads/insurance.csv')\nprint(f\"{df['charges'].corr(df['children']):.2f}\")",
};
/** The names of case 14's values in the order its code prints them. */
const PRINTED_NAMES: Record<number, string[]> = {
  14: ['price_range_mean', 'price_range_std_dev', 'price_range_median'],
};

type Mode = 'right' | 'unchecked' | 'wrong' | 'omit' | 'computed' | 'chatty' | 'slow';
let mode: Mode = 'right';
/** Cases answered otherwise than `mode`, by DABench id, so one run can mix them. */
const modeOfCase = new Map<number, Mode>();

/** Every labelled value, changed so that it no longer matches. */
const wrongValue = (value: string) => (Number.isFinite(Number(value)) ? String(Number(value) + 1) : `${value}-not`);

const answers: Record<Mode, OracleAnswer> = {
  right: answerFromLabels,
  unchecked: (item) => say(labelledAnswer(item)), // the right values, but no cell printed them
  wrong: (item) => say(item.labels.map(([name, value]) => `@${name}[${wrongValue(value)}]`).join(' ')),
  omit: (item) =>
    say(
      item.labels
        .slice(1)
        .map(([name, value]) => `@${name}[${value}]`)
        .join(' '),
    ),
  computed: (item, context) => computed(item, context),
  chatty: () => callTool('run_python', { code: 'print(1)' }), // never answers: runs until its token budget
  slow: () => slow(60_000, say('too late')),
};

function computed(item: DabenchItem, context: ScriptContext): ScriptStep {
  const code = COMPUTED[item.id];
  if (!code) return answerFromLabels(item, context);
  const result = context.lastToolResult;
  if (result?.name !== 'run_python') return callTool('run_python', { code });
  const values = result.content.match(/-?\d+(?:\.\d+)?/g) ?? [];
  const names = PRINTED_NAMES[item.id] ?? item.labels.map(([name]) => name);
  return say(names.map((name, index) => `@${name}[${values[index] ?? '?'}]`).join(' '));
}

let fixture: EvalFixture | undefined;
let server: ScriptedModelServer;
let harness: EvalHarness;
let items: DabenchItem[];
/** Cases 1-40: what the prompt-cache figures are measured on. */
let forty: DabenchItem[];
/** Case 22: a question on a metabolome CSV that once got the telco eda-overview playbook. */
let metabolome: DabenchItem[];

const RUN: EvalRunOptions = { concurrency: 4, caseWallMs: 120_000, caseTokens: 200_000 };

async function run(
  cases: ReturnType<typeof dabenchCases>,
  options: Partial<EvalRunOptions> = {},
): Promise<CaseResult[]> {
  return harness.run(cases, { ...RUN, ...options });
}

beforeAll(async () => {
  const all = await loadDabench();
  items = selectCases(all, '1-20');
  forty = selectCases(all, '1-40');
  metabolome = selectCases(all, '22');
  const script = dabenchOracle(forty, (item, context) => answers[modeOfCase.get(item.id) ?? mode](item, context), 200);
  fixture = await startEvalFixture('evalda', script);
  harness = fixture.harness;
  server = fixture.server;
}, 180_000);

afterAll(async () => {
  await fixture?.close();
}, 120_000);

describe('tally eval on DABench (scripted oracle)', () => {
  it('scores the first 40 cases answered from their labels 40/40, the way the benchmark does', async () => {
    mode = 'right';
    const results = await run(dabenchCases(forty));
    expect(results.map((result) => result.id).slice(0, 3)).toEqual(['dabench-0', 'dabench-5', 'dabench-6']);
    expect(
      results.filter((result) => !result.correct).map((result) => [result.id, result.parts, result.error]),
    ).toEqual([]);
    const summary = summariseEval(results, { suite: 'dabench', model: 'oracle', startedAt: '', wallMs: 0 });
    expect(summary.overall).toMatchObject({ cases: 40, byQuestion: 1, bySubQuestion: 1, proportional: 1 });
    // Every request after a case's first repeats what was sent before as its prefix, for the provider's cache.
    expect(repeatedPrefixShare(summary.tokens)).toBeGreaterThanOrEqual(0.85);
    expect(summary.tokens.cached).toBeGreaterThan(0);
    expect(Object.keys(summary.byLevel).sort()).toEqual(['easy', 'hard', 'medium']);
    expect(summary.byConcept['Summary Statistics']?.cases).toBeGreaterThan(0);
    expect(results.every((result) => result.tokens.prompt > 0 && result.modelCalls >= 2)).toBe(true);
    // The CSV was shared into the thread as a person would: the model was told where it is.
    expect(JSON.stringify(server.chatRequests.at(-1)?.body)).toContain('/inputs/uploads/');
    // Each case printed its values in a cell before stating them: every figure is grounded.
    expect(results.filter((result) => result.toolCalls !== 1).map((result) => result.id)).toEqual([]);
    expect(results.filter((result) => result.grounding?.ungrounded.length !== 0).map((result) => result.id)).toEqual(
      [],
    );
    expect(summary.grounding?.share).toBe(1);
    expect(summary.grounding?.figures).toBeGreaterThan(40);
    expect(summary.grounding?.grounded).toBe(summary.grounding?.figures);
    // Someone else's CSV: no case followed a playbook, and none was expected to; accuracy is unchanged by it.
    expect(results.filter((result) => result.playbook !== undefined).map((result) => result.id)).toEqual([]);
    expect(summary.playbookChoice).toMatchObject({ cases: 40, precision: 1, falsePositives: 0, trueNegatives: 40 });
  }, 900_000); // 40 cases, each in a fresh thread with its own kernel: minutes on a loaded 2-core machine

  it('follows no playbook for case 22, a metabolome question that once got the telco overview', async () => {
    mode = 'right';
    const asked = server.chatRequests.length;
    const [result] = await run(dabenchCases(metabolome));
    expect(result).toMatchObject({ id: 'dabench-35', status: 'done', correct: true, expectedPlaybook: null });
    expect(result?.playbook).toBeUndefined();
    expect(result?.transcript).not.toContain('Following playbook');
    const prompts = server.chatRequests.slice(asked).map((request) => JSON.stringify(request.body));
    expect(prompts.filter((body) => body.includes('row retention time')).length).toBeGreaterThan(0);
    expect(prompts.filter((body) => body.includes('Playbook to follow'))).toEqual([]);
  }, 300_000);

  it('marks figures stated with no cell behind them, lists them as ungrounded, and still scores them', async () => {
    mode = 'unchecked';
    const picked = items.filter((item) => [0, 8, 27].includes(item.id));
    const results = await run(dabenchCases(picked));
    expect(results.filter((result) => !result.correct).map((result) => [result.id, result.parts])).toEqual([]);
    // The answer was given again after the review note, unchanged, and posted with its figures marked.
    const [first] = results;
    expect(first?.answer).toMatch(/^@mean_fare\[34\.65⚠\]/);
    expect(first?.answer).toContain('⚠ not found in any result: 34.65');
    expect(results.map((result) => [result.id, result.grounding])).toEqual(
      picked.map((item) => {
        const figures = item.labels.map(([, value]) => value);
        return [`dabench-${item.id}`, { figures: figures.length, grounded: 0, ungrounded: figures }];
      }),
    );
    const summary = summariseEval(results, { suite: 'dabench', model: 'oracle', startedAt: '', wallMs: 0 });
    expect(summary.grounding).toMatchObject({ grounded: 0, share: 0 });
  }, 300_000);

  it('scores wrong numbers 0/20, and one omitted part of two with partial credit', async () => {
    mode = 'wrong';
    const wrong = await run(dabenchCases(items));
    expect(wrong.filter((result) => result.correct)).toEqual([]);
    expect(summariseEval(wrong, { suite: 'dabench', model: 'oracle', startedAt: '', wallMs: 0 }).overall).toMatchObject(
      {
        byQuestion: 0,
        bySubQuestion: 0,
      },
    );
    mode = 'omit';
    const twoParts = items.filter((item) => item.labels.length === 2);
    expect(twoParts.length).toBeGreaterThan(0);
    const [omitted] = await run(dabenchCases(twoParts.slice(0, 1)));
    expect(omitted?.correct).toBe(false);
    expect(omitted?.parts.map((part) => part.correct)).toEqual([false, true]);
    expect(omitted?.parts[0]?.why).toMatch(/^no @\w+\[…\] in the answer$/);
    const summary = summariseEval(omitted ? [omitted] : [], { suite: 'd', model: 'o', startedAt: '', wallMs: 0 });
    expect(summary.overall).toMatchObject({ byQuestion: 0, bySubQuestion: 0.5, proportional: 0.5 });
  }, 300_000);

  it('computes five answers with pandas in the sandbox from the shared CSV, and scores them correct', async () => {
    mode = 'computed';
    const picked = items.filter((item) => COMPUTED[item.id] !== undefined);
    expect(picked).toHaveLength(5);
    const results = await run(dabenchCases(picked));
    expect(results.map((result) => [result.id, result.correct, result.answer])).toEqual(
      picked.map((item) => [`dabench-${item.id}`, true, expect.stringMatching(/^@/)]),
    );
    expect(results.every((result) => result.toolCalls === 1 && result.failedToolCalls === 0)).toBe(true);
  }, 300_000);

  it('stops a case over its token budget and one over its time budget, and goes on with the rest', async () => {
    const [first, second, third] = items;
    if (!first || !second || !third) throw new Error('DABench has fewer than three cases');
    // The third case alone first: what a case answered normally spends.
    mode = 'right';
    const [alone] = await run(dabenchCases([third]));
    expect(alone).toMatchObject({ status: 'done', correct: true });
    // Then one run, one case after another: one that never answers, one whose model never replies in
    // time, and the third again, with budgets it fits in.
    modeOfCase.set(first.id, 'chatty');
    modeOfCase.set(second.id, 'slow');
    const caseTokens = 2 * ((alone?.tokens.prompt ?? 0) + (alone?.tokens.completion ?? 0));
    const results = await run(dabenchCases([first, second, third]), {
      concurrency: 1,
      caseTokens,
      caseWallMs: 15_000,
    }).finally(() => modeOfCase.clear());
    const [overTokens, overTime, after] = results;
    expect(overTokens?.status).toBe('token_budget');
    expect(overTokens?.correct).toBe(false);
    expect(overTokens?.error).toMatch(new RegExp(`over its budget of ${caseTokens} \\(tally eval --case-tokens\\)`));
    expect(overTime?.status).toBe('time_budget');
    expect(overTime?.correct).toBe(false);
    expect(overTime?.error).toMatch(/wall-clock budget of 15000 ms/);
    // The case after them runs as it did alone.
    expect(after).toMatchObject({
      id: alone?.id,
      status: 'done',
      correct: true,
      answer: alone?.answer,
      modelCalls: alone?.modelCalls,
      toolCalls: alone?.toolCalls,
      failedToolCalls: 0,
    });
    expect(after?.error).toBeUndefined();
  }, 300_000);
});
