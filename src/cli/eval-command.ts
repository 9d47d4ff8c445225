/**
 * `tally eval`: runs a suite through tally against the configured model (LLM_*), with a progress
 * line and an ETA, writes results.jsonl, summary.json and report.html, and prints the accuracy (for
 * DABench also as its published script scores it) and the share of figures grounded; or
 * `--compare A B` prints two runs side by side. Without
 * LLM_BASE_URL, DABench runs against the scripted oracle (it proves the harness, not a model) and
 * says so.
 */
import { join } from 'node:path';
import { loadConfig } from '../base/config.js';
import { EvalInputError } from '../base/errors.js';
import { createLogger } from '../base/logger.js';
import { startScriptedModelServer } from '../demo/scripted-model-server.js';
import { compareRuns } from '../eval/compare-runs.js';
import { dabenchOracle } from '../eval/dabench-oracle.js';
import { PUBLISHED_LABEL } from '../eval/dabench-published-score.js';
import { dabenchCases, loadDabench, selectCases } from '../eval/dabench-suite.js';
import { describeSummary } from '../eval/describe-summary.js';
import type { CaseResult, EvalCase } from '../eval/eval-case.js';
import { startEvalHarness } from '../eval/eval-harness.js';
import { loadGoldenCases } from '../eval/golden/golden-suite.js';
import { summariseEval } from '../eval/summarise-eval.js';
import { readEvalRun, writeEvalRun } from '../eval/write-eval-run.js';
import { createLlmClient } from '../llm/create-llm-client.js';

export const EVAL_USAGE = `tally eval --suite dabench|golden [--cases 1-40,77] [--concurrency N] [--model NAME]
           [--out DIR] [--data DIR] [--case-seconds S] [--case-tokens N]
tally eval --compare RUN_DIR_A RUN_DIR_B`;

interface EvalArguments {
  suite: 'dabench' | 'golden';
  cases?: string;
  concurrency: number;
  model?: string;
  out?: string;
  data?: string;
  caseSeconds: number;
  caseTokens: number;
}

const FLAGS = ['--suite', '--cases', '--concurrency', '--model', '--out', '--data', '--case-seconds', '--case-tokens'];

export function parseEvalArguments(words: string[]): EvalArguments | { compare: [string, string] } {
  if (words[0] === '--compare') {
    if (words.length !== 3) throw new EvalInputError(`--compare takes two run folders\n${EVAL_USAGE}`);
    return { compare: [words[1] ?? '', words[2] ?? ''] };
  }
  const flags: Record<string, string> = {};
  for (let index = 0; index < words.length; index += 2) {
    const [flag = '', value] = [words[index], words[index + 1]];
    if (!FLAGS.includes(flag)) throw new EvalInputError(`unknown argument ${flag}\n${EVAL_USAGE}`);
    if (value === undefined || value.startsWith('--')) throw new EvalInputError(`${flag} needs a value`);
    flags[flag.slice(2)] = value;
  }
  const suite = flags.suite;
  if (suite !== 'dabench' && suite !== 'golden')
    throw new EvalInputError(`--suite must be dabench or golden\n${EVAL_USAGE}`);
  const whole = (name: string, fallback: number) => {
    const value = Number(flags[name] ?? fallback);
    if (!Number.isInteger(value) || value < 1)
      throw new EvalInputError(`--${name} must be a whole number of at least 1`);
    return value;
  };
  return {
    suite,
    concurrency: whole('concurrency', 2),
    caseSeconds: whole('case-seconds', 600),
    caseTokens: whole('case-tokens', 200_000),
    ...(flags.cases ? { cases: flags.cases } : {}),
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.out ? { out: flags.out } : {}),
    ...(flags.data ? { data: flags.data } : {}),
  };
}

/** Runs the command; resolves with the exit code. */
export async function evalCommand(words: string[], print: (line: string) => void): Promise<number> {
  const parsed = parseEvalArguments(words);
  if ('compare' in parsed) {
    const [a, b] = parsed.compare;
    print(compareRuns(await readEvalRun(a), await readEvalRun(b)));
    return 0;
  }
  const config = loadConfig(process.env, parsed.model ? { LLM_MODEL: parsed.model } : {});
  const { cases, oracle } = await suiteCases(parsed);
  if (config.llm.baseUrl === undefined && !oracle) {
    throw new EvalInputError('The golden suite needs a model: set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL).');
  }
  const scripted =
    config.llm.baseUrl === undefined && oracle ? await startScriptedModelServer({ script: oracle }) : undefined;
  if (scripted) {
    print('No LLM_BASE_URL is set: a scripted oracle that knows the labels stands in for the model. The figures');
    print('prove the harness (sharing, threads, tools, scoring), not a model. Set LLM_BASE_URL to measure one.\n');
  }
  const llmSettings = scripted ? { ...config.llm, baseUrl: scripted.url, model: 'scripted-oracle' } : config.llm;
  const logger = createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel });
  const harness = await startEvalHarness({ config, logger, llm: createLlmClient(llmSettings, logger) });
  const startedAt = new Date();
  const progress = progressLine(cases.length, startedAt.getTime());
  let results: CaseResult[];
  try {
    const price = config.llm.prices?.[llmSettings.model];
    results = await harness.run(cases, {
      concurrency: parsed.concurrency,
      caseWallMs: parsed.caseSeconds * 1000,
      caseTokens: parsed.caseTokens,
      ...(price ? { price } : {}),
      onCaseDone: (result, done, total) => progress(result, done, total),
    });
  } finally {
    await harness.close();
    await scripted?.close();
  }
  process.stderr.write('\n');
  const summary = summariseEval(results, {
    suite: parsed.suite,
    model: llmSettings.model,
    startedAt: startedAt.toISOString(),
    wallMs: Date.now() - startedAt.getTime(),
  });
  const out =
    parsed.out ?? join(config.home, 'eval', `${parsed.suite}-${startedAt.toISOString().replace(/[:.]/g, '-')}`);
  const paths = await writeEvalRun(out, summary, results);
  print(describeSummary(summary));
  print(`\n${paths.resultsPath}\n${paths.summaryPath}\n${paths.reportPath}`);
  return 0;
}

async function suiteCases(
  parsed: EvalArguments,
): Promise<{ cases: EvalCase[]; oracle?: ReturnType<typeof dabenchOracle> }> {
  if (parsed.suite === 'golden') return { cases: selectCases(loadGoldenCases(), parsed.cases) };
  const items = selectCases(await loadDabench(parsed.data), parsed.cases);
  return { cases: dabenchCases(items, parsed.data), oracle: dabenchOracle(items) };
}

/** A case's verdict by tally's scorer and, for DABench, as published: `correct; as published (…): wrong`. */
function verdict(result: CaseResult): string {
  const own = result.correct ? 'correct' : result.status;
  const published = result.published;
  if (!published) return own;
  return `${own}; ${PUBLISHED_LABEL}: ${published.answered ? (published.correct ? 'correct' : 'wrong') : 'no response'}`;
}

/** One line on stderr, rewritten: a bar, cases done, correct so far, and the time left at this pace. */
function progressLine(total: number, startedAt: number) {
  let correct = 0;
  return (result: CaseResult, done: number, all: number) => {
    if (result.correct) correct += 1;
    const elapsed = Date.now() - startedAt;
    const left = Math.round(((elapsed / done) * (all - done)) / 1000);
    const width = 24;
    const filled = Math.round((done / total) * width);
    const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
    const line = `[${bar}] ${done}/${all} cases, ${correct} correct, ETA ${Math.floor(left / 60)}m${String(left % 60).padStart(2, '0')}s`;
    process.stderr.write(process.stderr.isTTY ? `\r${line}` : `${line}  (${result.id}: ${verdict(result)})\n`);
  };
}
