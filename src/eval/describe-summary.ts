/**
 * The lines `tally eval` prints when a run ends: accuracy three ways overall and by level, by tally's
 * scorer and, for DABench, as the benchmark's published script computes it
 * (`as published (eval_closed_form.py): by question 78.72%, …`), tokens, cost and time per case, how
 * the cases ended, the share of posted figures found in a tool result
 * (`figures grounded: 97.5% (39 of 40)`), and the playbook choice
 * (`playbook choice: precision 100.0%, recall 100.0% over 13 cases`).
 */
import { describeAsPublished, PUBLISHED_LABEL } from './dabench-published-score.js';
import type { EvalSummary } from './eval-case.js';
import { formatGrounded, formatPlaybookChoice } from './format-eval-numbers.js';
import { describeTokens } from './token-figures.js';

/** The run's summary as plain-text lines for a terminal. */
export function describeSummary(summary: EvalSummary): string {
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  const row = (label: string, accuracy: EvalSummary['overall']) =>
    `${label.padEnd(28)} ${String(accuracy.cases).padStart(5)}  ${percent(accuracy.byQuestion).padStart(8)}  ${percent(accuracy.bySubQuestion).padStart(8)}  ${percent(accuracy.proportional).padStart(8)}`;
  const lines = [
    `${summary.suite} with ${summary.model}: accuracy by question, by sub-question, proportional${summary.published ? " (tally's scorer)" : ''}`,
    `${''.padEnd(28)} ${'cases'.padStart(5)}  ${'question'.padStart(8)}  ${'sub-q'.padStart(8)}  ${'prop.'.padStart(8)}`,
    row('overall', summary.overall),
    ...Object.entries(summary.byLevel).map(([level, accuracy]) => row(`  ${level}`, accuracy)),
    ...(summary.published ? [`${PUBLISHED_LABEL}: ${describeAsPublished(summary.published)}`] : []),
    `tokens ${describeTokens(summary.tokens)}${summary.costUsd === undefined ? '' : `, $${summary.costUsd.toFixed(4)}`}; per case p50 ${Math.round(summary.perCase.wallMsP50 / 100) / 10} s wall, ${summary.perCase.tokensP50} tokens`,
    `statuses: ${Object.entries(summary.statuses)
      .map(([status, count]) => `${status} ${count}`)
      .join(', ')}`,
    ...(summary.grounding ? [`figures grounded: ${formatGrounded(summary.grounding)}`] : []),
    ...(summary.playbookChoice ? [`playbook choice: ${formatPlaybookChoice(summary.playbookChoice)}`] : []),
  ];
  if (summary.suite === 'dabench') {
    lines.push('published, by question: gpt-4-0613 (ReAct) 78.72%; Data Interpreter (gpt-4o) 94.93%');
  }
  return lines.join('\n');
}
