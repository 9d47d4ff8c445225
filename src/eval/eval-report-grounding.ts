/**
 * The `tally eval` HTML page on grounding: the header's line, and the section with the share of posted figures
 * found in a tool result and, per case, the figures that were not. Shown only for runs that measured it.
 */

import { escapeHtml } from '../report/export-html.js';
import type { CaseResult, EvalSummary } from './eval-case.js';
import { caseId, grounded, numberCell } from './eval-report-cells.js';
import { formatGrounded } from './format-eval-numbers.js';

/** The header's line on grounding, for runs that measured it. */
export function groundingHeader(summary: EvalSummary): string {
  return summary.grounding
    ? `<dt>Figures grounded</dt><dd>${escapeHtml(formatGrounded(summary.grounding))}</dd>\n`
    : '';
}

export function groundingSection(summary: EvalSummary, results: CaseResult[]): string {
  const { grounding } = summary;
  if (!grounding) return '';
  const heading = `<h2>Figures grounded</h2>`;
  if (grounding.figures === 0) return `${heading}\n<p>No case posted a figure.</p>`;
  const flagged = results.filter((result) => (result.grounding?.ungrounded.length ?? 0) > 0);
  const rows = flagged.map(
    (result) =>
      `<tr><td>${caseId(result)}</td>${numberCell(grounded(result))}<td><code>${escapeHtml(
        result.grounding?.ungrounded.join(', ') ?? '',
      )}</code></td></tr>`,
  );
  const share = `<p>Of the figures the cases posted in answers and report sections, ${escapeHtml(
    formatGrounded(grounding),
  )} were found in a tool result of their thread (or said to be computed from two that were); the others were posted marked ⚠.</p>`;
  const list =
    rows.length === 0
      ? '<p>Every figure posted was found in a tool result.</p>'
      : `<table id="ungrounded"><thead><tr><th scope="col">Case</th><th scope="col">Figures grounded</th><th scope="col">Not found in any result</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
  return `${heading}\n${share}\n${list}`;
}
