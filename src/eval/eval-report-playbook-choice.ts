/**
 * The `tally eval` HTML page on the playbook choice: the header's line, and the section with precision, recall,
 * the counts behind them and the cases that chose otherwise. Shown only for runs that recorded it.
 */

import { escapeHtml } from '../report/export-html.js';
import type { CaseResult, EvalSummary } from './eval-case.js';
import { caseId, numberCell } from './eval-report-cells.js';
import { formatCount, formatPercent, formatPlaybookChoice } from './format-eval-numbers.js';

/** The header's line on the playbook choice, for runs that recorded it. */
export function playbookChoiceHeader(summary: EvalSummary): string {
  return summary.playbookChoice
    ? `<dt>Playbook choice</dt><dd>${escapeHtml(formatPlaybookChoice(summary.playbookChoice))}</dd>\n`
    : '';
}

export function playbookChoiceSection(summary: EvalSummary, results: CaseResult[]): string {
  const choice = summary.playbookChoice;
  if (!choice) return '';
  const rows: Array<[string, string]> = [
    ['Precision: the right playbook, of all followed', formatPercent(choice.precision)],
    ['Recall: the right playbook, of all cases that should follow one', formatPercent(choice.recall)],
    ['The right playbook', formatCount(choice.truePositives)],
    ['Another playbook than the right one', formatCount(choice.wrong)],
    ['None, where one fits', formatCount(choice.falseNegatives)],
    ['A playbook, where none fits', formatCount(choice.falsePositives)],
    ['None, where none fits', formatCount(choice.trueNegatives)],
  ];
  const name = (file: string | null | undefined) => `<code>${escapeHtml(file ?? 'none')}</code>`;
  const otherwise = results.filter(
    (result) => result.expectedPlaybook !== undefined && (result.playbook ?? null) !== result.expectedPlaybook,
  );
  const list =
    otherwise.length === 0
      ? '<p>Every case followed the playbook it should, or none where none fits.</p>'
      : `<table id="playbook-otherwise"><thead><tr><th scope="col">Case</th><th scope="col">Should follow</th><th scope="col">Followed</th></tr></thead>
<tbody>${otherwise
          .map(
            (result) =>
              `<tr><td>${caseId(result)}</td><td>${name(result.expectedPlaybook)}</td><td>${name(result.playbook)}</td></tr>`,
          )
          .join('\n')}</tbody></table>`;
  return `<h2>Playbook choice</h2>
<table id="playbook-choice"><tbody>
${rows.map(([label, value]) => `<tr><th scope="row">${escapeHtml(label)}</th>${numberCell(value)}</tr>`).join('\n')}
</tbody></table>
<p class="note">Over the ${formatCount(choice.cases)} cases that expect a playbook or none (a golden case names its playbook; a DABench question on its own CSV expects none). Not part of the accuracy above, except as the golden cases' playbook part.</p>
${list}`;
}
