/**
 * The `tally eval` HTML page's pieces for DABench scored as its published script scores it
 * (dabench-published-score.ts), beside tally's own score: a row of the accuracy table, a column of the
 * case tables, a line in each failed case, and a row of the published-figures table. A run without
 * published scores (another suite, an older run) shows none of them. Every piece of text is escaped.
 */

import { escapeHtml } from '../report/export-html.js';
import { formatAsPublished, PUBLISHED_LABEL, PUBLISHED_SOURCE } from './dabench-published-score.js';
import type { CaseResult, EvalSummary } from './eval-case.js';
import { numberCell, partsCorrect } from './eval-report-cells.js';
import { formatCount } from './format-eval-numbers.js';

/** `As published (eval_closed_form.py)`, capitalised for a heading or a row. */
const HEADING = `${PUBLISHED_LABEL[0]?.toUpperCase()}${PUBLISHED_LABEL.slice(1)}`;

/** The accuracy table's group for the published score: cases scored and the three accuracies, as the script prints them. */
export function publishedAccuracyGroup(summary: EvalSummary): string {
  const published = summary.published;
  if (!published) return '';
  return `<tbody>
<tr><th colspan="5" scope="rowgroup">${escapeHtml(HEADING)}</th></tr>
<tr><th scope="row">Overall</th>${numberCell(formatCount(published.scored))}${numberCell(
    formatAsPublished(published.byQuestion),
  )}${numberCell(formatAsPublished(published.bySubQuestion))}${numberCell(formatAsPublished(published.proportional))}</tr>
</tbody>`;
}

/** What the accuracy table's note says about the published score. */
export function publishedAccuracyNote(summary: EvalSummary): string {
  const published = summary.published;
  if (!published) return '';
  const unanswered = published.cases - published.scored;
  return `<p class="note">${escapeHtml(HEADING)}: scored as ${escapeHtml(PUBLISHED_SOURCE)} scores the answers, so the figures compare with published ones. Each labelled name must be in the answer text as <code>@name[value]</code> equal as a string or within 1e-6 as Python's float(), with nothing stripped and tally's ⚠ marks left in; a repeated name counts once, with its last value. ${
    unanswered > 0
      ? `The ${formatCount(unanswered)} ${unanswered === 1 ? 'case' : 'cases'} with no response ${unanswered === 1 ? 'is' : 'are'} left out, as the script leaves them out.`
      : 'Every case had a response.'
  } Rounded to 4 places and shown to 2 decimals, as the script prints them.</p>`;
}

/** Whether the case tables have the published column: when any case has a published score. */
export function hasPublished(results: CaseResult[]): boolean {
  return results.some((result) => result.published !== undefined);
}

export const PUBLISHED_HEADER = `<th scope="col">${escapeHtml(HEADING)}</th>`;

/** A case's published verdict: yes, no, or `no response` (left out); a dash when it has none. */
export function publishedCell(result: CaseResult): string {
  const published = result.published;
  if (!published) return '<td>—</td>';
  if (!published.answered) return '<td>no response</td>';
  const verdict = published.correct ? '<span class="yes">yes</span>' : '<span class="no">no</span>';
  return `<td>${verdict} (${escapeHtml(partsCorrect(published))})</td>`;
}

/** A failed case's line on its published score: the verdict, and the names wrong as published. */
export function publishedLine(result: CaseResult): string {
  const published = result.published;
  if (!published) return '';
  if (!published.answered) return `<p><strong>${escapeHtml(HEADING)}:</strong> no response, left out.</p>`;
  const wrong = published.parts.filter((part) => !part.correct);
  const names = wrong.map((part) =>
    part.got === undefined
      ? `<code>@${escapeHtml(part.name)}</code> missing`
      : `<code>@${escapeHtml(part.name)}[${escapeHtml(part.got)}]</code>`,
  );
  return `<p><strong>${escapeHtml(HEADING)}:</strong> ${published.correct ? 'correct' : 'wrong'} (${escapeHtml(
    partsCorrect(published),
  )} parts)${wrong.length > 0 ? `; wrong: ${names.join(', ')}` : ''}.</p>`;
}

/** The published-figures table's row for this run scored as published, beside tally's own. */
export function publishedReferenceRow(summary: EvalSummary): string {
  const published = summary.published;
  if (!published) return '';
  return `<tr class="this-run"><td>This run, ${escapeHtml(PUBLISHED_LABEL)}</td><td>${escapeHtml(summary.model)}</td>${numberCell(
    formatAsPublished(published.byQuestion),
  )}<td>by question</td><td>${formatCount(published.scored)} cases with a response</td></tr>`;
}
