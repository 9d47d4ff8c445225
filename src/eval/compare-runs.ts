/**
 * `tally eval --compare A B`: two runs side by side as plain text, for a terminal. Accuracy three
 * ways and by level (for DABench also as its published script computes it), the share of figures
 * grounded, the playbook choice, tokens, time and cost with the change from A to B, then the cases
 * whose verdict flipped and those only one run has.
 */
import { formatUtc } from '../report/export-markdown.js';
import { formatAsPublished, PUBLISHED_LABEL } from './dabench-published-score.js';
import type { Accuracy, EvalPlaybookChoice, EvalSummary, PublishedAccuracy } from './eval-case.js';
import {
  formatCost,
  formatCount,
  formatDuration,
  formatGrounded,
  formatPercent,
  formatShare,
  sortLevels,
} from './format-eval-numbers.js';
import { repeatedPrefixShare } from './token-figures.js';
import type { EvalRun } from './write-eval-run.js';

/** A row of the table: what, A, B, and the change from A to B ('' when it means nothing). */
type Row = [label: string, a: string, b: string, change: string];

const LIST_WIDTH = 100;

function started(summary: EvalSummary): string {
  const ms = Date.parse(summary.startedAt);
  return Number.isNaN(ms) ? summary.startedAt : formatUtc(ms);
}

/** Accuracy moves in percentage points: "+2.0 pts" reads unambiguously where "+2%" does not. */
function pointsChange(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return '';
  const points = (b - a) * 100;
  return `${points >= 0 ? '+' : '−'}${Math.abs(points).toFixed(1)} pts`;
}

/** Amounts (tokens, time, money) move relative to A. */
function relativeChange(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || a === 0) return '';
  const percent = ((b - a) / a) * 100;
  return `${percent >= 0 ? '+' : '−'}${Math.abs(percent).toFixed(0)}%`;
}

function accuracyRows(label: string, a: Accuracy | undefined, b: Accuracy | undefined): Row[] {
  const cell = (accuracy: Accuracy | undefined, value: (accuracy: Accuracy) => number) =>
    accuracy ? formatPercent(value(accuracy)) : '—';
  const change = (value: (accuracy: Accuracy) => number) => (a && b ? pointsChange(value(a), value(b)) : '');
  const byQuestion = (accuracy: Accuracy) => accuracy.byQuestion;
  const bySubQuestion = (accuracy: Accuracy) => accuracy.bySubQuestion;
  const proportional = (accuracy: Accuracy) => accuracy.proportional;
  return [
    [`${label}: cases`, a ? formatCount(a.cases) : '—', b ? formatCount(b.cases) : '—', ''],
    [`${label}: by question`, cell(a, byQuestion), cell(b, byQuestion), change(byQuestion)],
    [`${label}: by sub-question`, cell(a, bySubQuestion), cell(b, bySubQuestion), change(bySubQuestion)],
    [`${label}: proportional`, cell(a, proportional), cell(b, proportional), change(proportional)],
  ];
}

/** DABench's accuracies as its published script computes them; none when neither run has them. */
function publishedRows(a: EvalSummary, b: EvalSummary): Row[] {
  if (!a.published && !b.published) return [];
  const row = (label: string, value: (accuracy: PublishedAccuracy) => number): Row => [
    `${PUBLISHED_LABEL}: ${label}`,
    a.published ? formatAsPublished(value(a.published)) : '—',
    b.published ? formatAsPublished(value(b.published)) : '—',
    a.published && b.published ? pointsChange(value(a.published), value(b.published)) : '',
  ];
  const scored = (summary: EvalSummary) => (summary.published ? formatCount(summary.published.scored) : '—');
  return [
    [`${PUBLISHED_LABEL}: cases with a response`, scored(a), scored(b), ''],
    row('by question', (accuracy) => accuracy.byQuestion),
    row('proportional', (accuracy) => accuracy.proportional),
    row('by sub-question', (accuracy) => accuracy.bySubQuestion),
  ];
}

function levelRows(a: EvalSummary, b: EvalSummary): Row[] {
  return sortLevels([...Object.keys(a.byLevel), ...Object.keys(b.byLevel)]).map((level) => {
    const left = a.byLevel[level];
    const right = b.byLevel[level];
    const cell = (accuracy: Accuracy | undefined) =>
      accuracy ? `${formatPercent(accuracy.byQuestion)} of ${formatCount(accuracy.cases)}` : '—';
    const change = left && right ? pointsChange(left.byQuestion, right.byQuestion) : '';
    return [`level ${level}: by question`, cell(left), cell(right), change];
  });
}

/** A run written before `tally eval` measured grounding shows a dash; a run with no figures has no share to move. */
function groundingRow(a: EvalSummary, b: EvalSummary): Row {
  const cell = (summary: EvalSummary) => (summary.grounding ? formatGrounded(summary.grounding) : '—');
  const left = a.grounding;
  const right = b.grounding;
  const change = left && right && left.figures > 0 && right.figures > 0 ? pointsChange(left.share, right.share) : '';
  return ['figures grounded', cell(a), cell(b), change];
}

/** The share of prompt tokens in a repeated prefix; a dash for a run written before `tally eval` measured it. */
function shareRow(label: string, a: EvalSummary, b: EvalSummary): Row {
  const [left, right] = [repeatedPrefixShare(a.tokens), repeatedPrefixShare(b.tokens)];
  return [
    label,
    formatShare(left),
    formatShare(right),
    left !== undefined && right !== undefined ? pointsChange(left, right) : '',
  ];
}

/** Precision and recall of the playbook choice; a dash for a run written before `tally eval` recorded it. */
function playbookRows(a: EvalSummary, b: EvalSummary): Row[] {
  const row = (label: string, value: (choice: EvalPlaybookChoice) => number): Row => {
    const left = a.playbookChoice;
    const right = b.playbookChoice;
    return [
      label,
      left ? formatPercent(value(left)) : '—',
      right ? formatPercent(value(right)) : '—',
      left && right ? pointsChange(value(left), value(right)) : '',
    ];
  };
  if (!a.playbookChoice && !b.playbookChoice) return [];
  return [row('playbook precision', (choice) => choice.precision), row('playbook recall', (choice) => choice.recall)];
}

function amountRows(a: EvalSummary, b: EvalSummary): Row[] {
  const total = (summary: EvalSummary) => summary.tokens.prompt + summary.tokens.completion;
  const notDone = (summary: EvalSummary) =>
    Object.entries(summary.statuses).reduce((sum, [status, count]) => sum + (status === 'done' ? 0 : count), 0);
  const amount = (label: string, value: (summary: EvalSummary) => number, format: (n: number) => string): Row => [
    label,
    format(value(a)),
    format(value(b)),
    relativeChange(value(a), value(b)),
  ];
  return [
    amount('tokens', total, formatCount),
    amount('tokens in', (summary) => summary.tokens.prompt, formatCount),
    amount('tokens out', (summary) => summary.tokens.completion, formatCount),
    shareRow('prompt in a repeated prefix', a, b),
    amount('tokens per case (p50)', (summary) => summary.perCase.tokensP50, formatCount),
    amount('wall time', (summary) => summary.wallMs, formatDuration),
    amount('wall time per case (p50)', (summary) => summary.perCase.wallMsP50, formatDuration),
    amount('model time per case (p50)', (summary) => summary.perCase.modelMsP50, formatDuration),
    ['cost', formatCost(a.costUsd), formatCost(b.costUsd), relativeChange(a.costUsd, b.costUsd)],
    ['cases not run to their end', formatCount(notDone(a)), formatCount(notDone(b)), ''],
  ];
}

function table(rows: Row[]): string[] {
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

/** `heading (n): id, id, …`, wrapped and indented, or `heading: none`. */
function idList(heading: string, ids: string[]): string[] {
  if (ids.length === 0) return [`${heading}: none`];
  const lines = [`${heading} (${ids.length}):`];
  let line = ' ';
  for (const [index, id] of ids.entries()) {
    const item = ` ${id}${index < ids.length - 1 ? ',' : ''}`;
    if (line.length + item.length > LIST_WIDTH && line.trim() !== '') {
      lines.push(line);
      line = ' ';
    }
    line += item;
  }
  lines.push(line);
  return lines;
}

const byId = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

/** Renders runs A and B side by side as plain text; the CLI prints it. */
export function compareRuns(a: EvalRun, b: EvalRun): string {
  const verdictsA = new Map(a.results.map((result) => [result.id, result.correct]));
  const verdictsB = new Map(b.results.map((result) => [result.id, result.correct]));
  const inBoth = [...verdictsA.keys()].filter((id) => verdictsB.has(id)).sort(byId);
  const lost = inBoth.filter((id) => verdictsA.get(id) && !verdictsB.get(id));
  const gained = inBoth.filter((id) => !verdictsA.get(id) && verdictsB.get(id));
  const onlyA = [...verdictsA.keys()].filter((id) => !verdictsB.has(id)).sort(byId);
  const onlyB = [...verdictsB.keys()].filter((id) => !verdictsA.has(id)).sort(byId);

  const rows: Row[] = [
    ['', 'A', 'B', 'change'],
    ['suite', a.summary.suite, b.summary.suite, ''],
    ['model', a.summary.model, b.summary.model, ''],
    ['started', started(a.summary), started(b.summary), ''],
    ...accuracyRows('overall', a.summary.overall, b.summary.overall),
    ...publishedRows(a.summary, b.summary),
    ...levelRows(a.summary, b.summary),
    groundingRow(a.summary, b.summary),
    ...playbookRows(a.summary, b.summary),
    ...amountRows(a.summary, b.summary),
  ];
  const lines = table(rows);
  if (a.summary.suite !== b.summary.suite) {
    lines.push('', `The runs are of different suites (${a.summary.suite}, ${b.summary.suite}): compare with care.`);
  }
  lines.push(
    '',
    ...idList('Correct in A, not in B', lost),
    ...idList('Correct in B, not in A', gained),
    ...idList('Only in A', onlyA),
    ...idList('Only in B', onlyB),
  );
  return `${lines.join('\n')}\n`;
}
