/**
 * A run's results summed up: accuracy three ways (overall, by level, by concept, and for DABench as
 * its published script computes it), statuses, tokens and cost, the share of posted figures found in
 * a tool result, and the playbook choice.
 */
import { publishedAccuracy } from './dabench-published-score.js';
import type { Accuracy, CaseResult, CaseStatus, EvalGrounding, EvalPlaybookChoice, EvalSummary } from './eval-case.js';
import { scorePlaybookChoice } from './playbook-choice.js';
import { sumTokens } from './token-figures.js';

/** Accuracy as the DABench paper reports it: by question, by sub-question, and proportional. */
export function accuracyOf(results: CaseResult[]): Accuracy {
  const parts = results.reduce((total, result) => total + result.parts.length, 0);
  const correctParts = results.reduce((total, result) => total + result.parts.filter((part) => part.correct).length, 0);
  const share = (result: CaseResult) =>
    result.parts.length === 0 ? 0 : result.parts.filter((part) => part.correct).length / result.parts.length;
  return {
    cases: results.length,
    byQuestion: results.length === 0 ? 0 : results.filter((result) => result.correct).length / results.length,
    bySubQuestion: parts === 0 ? 0 : correctParts / parts,
    proportional:
      results.length === 0 ? 0 : results.reduce((total, result) => total + share(result), 0) / results.length,
  };
}

function groupBy(results: CaseResult[], keys: (result: CaseResult) => string[]): Record<string, Accuracy> {
  const groups = new Map<string, CaseResult[]>();
  for (const result of results) {
    for (const key of keys(result)) groups.set(key, [...(groups.get(key) ?? []), result]);
  }
  return Object.fromEntries(
    [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, group]) => [key, accuracyOf(group)]),
  );
}

/** The posted figures of every case that measured them; a share of 1 when there were none. */
export function runGrounding(results: CaseResult[]): EvalGrounding {
  const measured = results.flatMap((result) => (result.grounding ? [result.grounding] : []));
  const figures = measured.reduce((total, grounding) => total + grounding.figures, 0);
  const grounded = measured.reduce((total, grounding) => total + grounding.grounded, 0);
  return { figures, grounded, share: figures === 0 ? 1 : grounded / figures };
}

/** The playbook choice over the cases that expected a playbook or none; undefined when none did. */
export function runPlaybookChoice(results: CaseResult[]): EvalPlaybookChoice | undefined {
  const choices = results.flatMap((result) =>
    result.expectedPlaybook === undefined
      ? []
      : [{ expected: result.expectedPlaybook, chosen: result.playbook ?? null }],
  );
  return choices.length === 0 ? undefined : scorePlaybookChoice(choices);
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] ?? 0;
}

export function summariseEval(
  results: CaseResult[],
  meta: { suite: string; model: string; startedAt: string; wallMs: number },
): EvalSummary {
  const statuses: Record<CaseStatus, number> = { done: 0, time_budget: 0, token_budget: 0, error: 0 };
  for (const result of results) statuses[result.status] += 1;
  const costs = results.flatMap((result) => (result.costUsd === undefined ? [] : [result.costUsd]));
  const playbookChoice = runPlaybookChoice(results);
  const published = results.flatMap((result) => (result.published ? [result.published] : []));
  return {
    ...meta,
    overall: accuracyOf(results),
    byLevel: groupBy(results, (result) => [result.level]),
    byConcept: groupBy(results, (result) => result.concepts),
    ...(published.length > 0 ? { published: publishedAccuracy(published) } : {}),
    statuses,
    tokens: sumTokens(results.map((result) => result.tokens)),
    ...(costs.length > 0 ? { costUsd: costs.reduce((total, cost) => total + cost, 0) } : {}),
    perCase: {
      wallMsP50: median(results.map((result) => result.wallMs)),
      modelMsP50: median(results.map((result) => result.modelMs)),
      tokensP50: median(results.map((result) => result.tokens.prompt + result.tokens.completion)),
    },
    grounding: runGrounding(results),
    ...(playbookChoice ? { playbookChoice } : {}),
  };
}
