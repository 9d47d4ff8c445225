/**
 * The evaluation harness: tally built as for any chat (session router, agent, sandbox, tools, store),
 * with a headless chat in place of a platform and a model client that counts each case's use. Cases
 * run in fresh threads, in parallel up to `concurrency`, each within its wall-clock and token budget;
 * a case that fails or runs over is reported as such and the run goes on.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from '../base/config.js';
import type { ModelPrice } from '../base/config-types.js';
import { EvalBudgetError } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import type { LlmClient } from '../ports/llm.js';
import { createTally, type Tally } from '../wiring/create-tally.js';
import { CaseAccounting } from './case-accounting.js';
import type { CaseResult, CaseStatus, EvalCase } from './eval-case.js';
import { HeadlessThreads } from './headless-threads.js';
import { costOf } from './model-cost.js';
import { runCase } from './run-case.js';

export interface EvalRunOptions {
  /** Cases at once. */
  concurrency: number;
  /** Wall-clock budget of one case, in ms: its running turn is stopped then. */
  caseWallMs: number;
  /** Tokens one case may use (prompt and completion); further model requests are refused. */
  caseTokens: number;
  /** USD per million prompt and completion tokens, when known for the model. */
  price?: ModelPrice;
  /** Told after every case, with how many are done. */
  onCaseDone?: (result: CaseResult, done: number, total: number) => void;
}

export interface EvalHarness {
  readonly tally: Tally;
  run(cases: EvalCase[], options: EvalRunOptions): Promise<CaseResult[]>;
  close(): Promise<void>;
}

/** The case's answer scored as published, for suites that have such a score (DABench). */
function publishedScore(evalCase: EvalCase, answer: string): Pick<CaseResult, 'published'> {
  return evalCase.scoreAsPublished ? { published: evalCase.scoreAsPublished(answer) } : {};
}

export async function startEvalHarness(options: {
  config: Config;
  logger: Logger;
  llm: LlmClient;
}): Promise<EvalHarness> {
  const threads = new HeadlessThreads();
  const accounting = new CaseAccounting();
  const tally = await createTally({
    config: options.config,
    logger: options.logger,
    llm: accounting.measure(options.llm),
    post: threads.post,
  });

  /** A case the harness itself could not run (a missing file, the store gone): reported, not thrown. */
  const broken = (evalCase: EvalCase, error: unknown, wallMs: number): CaseResult => ({
    id: evalCase.id,
    suite: evalCase.suite,
    level: evalCase.level,
    concepts: evalCase.concepts,
    status: 'error',
    correct: false,
    parts: [],
    answer: '',
    toolCalls: 0,
    failedToolCalls: 0,
    tokens: { prompt: 0, completion: 0 },
    modelCalls: 0,
    modelMs: 0,
    wallMs: Math.round(wallMs),
    error: error instanceof Error ? error.message : String(error),
    grounding: { figures: 0, grounded: 0, ungrounded: [] },
    ...publishedScore(evalCase, ''),
    transcript: '',
  });

  const runOne = async (evalCase: EvalCase, runId: string, options: EvalRunOptions): Promise<CaseResult> => {
    const threadKey = `eval:${runId}:${evalCase.id}`;
    const started = performance.now();
    const { value: run, usage } = await accounting.run(options.caseTokens, () =>
      runCase(evalCase, threadKey, {
        handle: (inbound) => tally.router.handle(inbound),
        threads,
        store: tally.store,
        wallMs: options.caseWallMs,
      }),
    );
    threads.forget(threadKey);
    // An error the thread was told (the agent gave up, a model that kept failing) is recorded with the
    // case; the case itself ran to its end unless a budget stopped it.
    const status: CaseStatus = run.timedOut ? 'time_budget' : usage.refused > 0 ? 'token_budget' : 'done';
    const parts = evalCase.score(run.outcome);
    const { price } = options;
    return {
      id: evalCase.id,
      suite: evalCase.suite,
      level: evalCase.level,
      concepts: evalCase.concepts,
      status,
      correct: status === 'done' && parts.length > 0 && parts.every((part) => part.correct),
      parts,
      answer: run.outcome.answer,
      toolCalls: run.toolCalls,
      failedToolCalls: run.failedToolCalls,
      tokens: usage.tokens,
      modelCalls: usage.modelCalls,
      modelMs: Math.round(usage.modelMs),
      wallMs: Math.round(performance.now() - started),
      ...(price ? { costUsd: costOf(usage.tokens, price) } : {}),
      ...(status === 'time_budget'
        ? { error: `stopped at its wall-clock budget of ${options.caseWallMs} ms (tally eval --case-seconds)` }
        : status === 'token_budget'
          ? { error: new EvalBudgetError(usage.tokens.prompt + usage.tokens.completion, options.caseTokens).message }
          : run.error
            ? { error: run.error }
            : {}),
      grounding: run.grounding,
      ...publishedScore(evalCase, run.outcome.answer),
      ...(run.outcome.playbook ? { playbook: run.outcome.playbook } : {}),
      ...(evalCase.playbook === undefined ? {} : { expectedPlaybook: evalCase.playbook }),
      transcript: run.outcome.transcript,
    };
  };

  return {
    tally,
    async run(cases, runOptions) {
      const runId = randomBytes(4).toString('hex'); // fresh threads for every run
      const results: CaseResult[] = new Array(cases.length);
      let next = 0;
      let done = 0;
      const worker = async () => {
        for (let index = next++; index < cases.length; index = next++) {
          const evalCase = cases[index];
          if (!evalCase) continue;
          const started = performance.now();
          const result = await runOne(evalCase, runId, runOptions).catch((error: unknown) =>
            broken(evalCase, error, performance.now() - started),
          );
          results[index] = result;
          done += 1;
          runOptions.onCaseDone?.(result, done, cases.length);
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(runOptions.concurrency, cases.length)) }, worker));
      return results;
    },
    close: () => tally.close(),
  };
}
