/**
 * A `tally eval` run as one self-contained HTML page: accuracy three ways (overall, by level, by
 * concept, and for DABench also as its published script scores it, per case too), the share of posted
 * figures found in a tool result (overall, per case, and the figures that were not), the playbook
 * choice (precision, recall, and the cases that chose otherwise), cost and time per case, the slowest
 * cases, and the failed cases with their transcripts folded. Answers and transcripts come from a model
 * and the datasets, so every piece of text is escaped and the page's policy lets nothing load and
 * nothing run. The page's styles and policy, the sections on grounding, the playbook choice, the
 * published score and published figures, and the cells the tables share have files of their own
 * (eval-report-*.ts, eval-reference-figures.ts).
 */

import { escapeHtml } from '../report/export-html.js';
import { formatUtc } from '../report/export-markdown.js';
import type { Accuracy, CaseResult, CaseStatus, EvalSummary } from './eval-case.js';
import { referenceTable } from './eval-reference-figures.js';
import { caseAnchor, caseFailed, caseId, grounded, numberCell, partsCorrect, yesNo } from './eval-report-cells.js';
import { groundingHeader, groundingSection } from './eval-report-grounding.js';
import { playbookChoiceHeader, playbookChoiceSection } from './eval-report-playbook-choice.js';
import {
  hasPublished,
  PUBLISHED_HEADER,
  publishedAccuracyGroup,
  publishedAccuracyNote,
  publishedCell,
  publishedLine,
} from './eval-report-published.js';
import { EVAL_REPORT_POLICY, EVAL_REPORT_STYLE } from './eval-report-style.js';
import {
  formatCost,
  formatCount,
  formatDuration,
  formatPercent,
  formatShare,
  sortLevels,
} from './format-eval-numbers.js';
import { describeTokens, repeatedPrefixShare } from './token-figures.js';

const SLOWEST_SHOWN = 10;
const STATUSES: CaseStatus[] = ['done', 'time_budget', 'token_budget', 'error'];

function accuracyRow(label: string, accuracy: Accuracy): string {
  return `<tr><th scope="row">${escapeHtml(label)}</th>${numberCell(formatCount(accuracy.cases))}${numberCell(
    formatPercent(accuracy.byQuestion),
  )}${numberCell(formatPercent(accuracy.bySubQuestion))}${numberCell(formatPercent(accuracy.proportional))}</tr>`;
}

function accuracyGroup(title: string, rows: Array<[string, Accuracy]>): string {
  if (rows.length === 0) return '';
  return `<tbody>
<tr><th colspan="5" scope="rowgroup">${escapeHtml(title)}</th></tr>
${rows.map(([label, accuracy]) => accuracyRow(label, accuracy)).join('\n')}
</tbody>`;
}

function accuracyTable(summary: EvalSummary): string {
  const levels = sortLevels(Object.keys(summary.byLevel)).flatMap((level) => {
    const accuracy = summary.byLevel[level];
    return accuracy ? [[level, accuracy] as [string, Accuracy]] : [];
  });
  const concepts = Object.entries(summary.byConcept).sort(([a], [b]) => a.localeCompare(b));
  return `<h2>Accuracy</h2>
<table id="accuracy">
<thead><tr><th scope="col"></th><th scope="col">Cases</th><th scope="col">By question</th><th scope="col">By sub-question</th><th scope="col">Proportional</th></tr></thead>
<tbody>${accuracyRow('Overall', summary.overall)}</tbody>
${accuracyGroup('By level', levels)}
${accuracyGroup('By concept', concepts)}
${publishedAccuracyGroup(summary)}
</table>
<p class="note">By question: cases with every part correct. By sub-question: correct parts of all parts. Proportional: the mean over cases of each case's share of correct parts.</p>
${publishedAccuracyNote(summary)}`;
}

function statusTable(summary: EvalSummary): string {
  const rows = STATUSES.map(
    (status) =>
      `<tr><th scope="row">${escapeHtml(status)}</th>${numberCell(formatCount(summary.statuses[status] ?? 0))}</tr>`,
  );
  return `<h2>How the cases ended</h2>
<table id="statuses"><thead><tr><th scope="col">Status</th><th scope="col">Cases</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

function caseRow(result: CaseResult, published: boolean): string {
  return `<tr><td>${caseId(result)}</td><td>${escapeHtml(result.level)}</td><td>${yesNo(result.correct)}</td>${
    published ? publishedCell(result) : ''
  }<td>${escapeHtml(
    result.status,
  )}</td>${numberCell(partsCorrect(result))}${numberCell(grounded(result))}${numberCell(formatCount(result.tokens.prompt))}${numberCell(
    formatShare(repeatedPrefixShare(result.tokens)),
  )}${numberCell(result.tokens.cached === undefined ? '—' : formatCount(result.tokens.cached))}${numberCell(
    formatCount(result.tokens.completion),
  )}${numberCell(formatDuration(result.modelMs))}${numberCell(formatDuration(result.wallMs))}${numberCell(formatCost(result.costUsd))}</tr>`;
}

/** The case tables' header; with a column for the published score when the run has one (DABench). */
function caseHeader(published: boolean): string {
  return `<thead><tr><th scope="col">Case</th><th scope="col">Level</th><th scope="col">${published ? "Correct (tally's scorer)" : 'Correct'}</th>${published ? PUBLISHED_HEADER : ''}<th scope="col">Status</th><th scope="col">Parts</th><th scope="col">Figures grounded</th><th scope="col">Tokens in</th><th scope="col">Repeated prefix</th><th scope="col">Cached</th><th scope="col">Tokens out</th><th scope="col">Model time</th><th scope="col">Wall time</th><th scope="col">Cost</th></tr></thead>`;
}

function caseTable(id: string, results: CaseResult[], published: boolean): string {
  return `<table id="${id}">${caseHeader(published)}
<tbody>${results.map((result) => caseRow(result, published)).join('\n')}</tbody></table>`;
}

function failedCase(result: CaseResult): string {
  const parts = result.parts.map(
    (part) =>
      `<tr><td><code>${escapeHtml(part.name)}</code></td><td>${yesNo(part.correct)}</td><td><code>${escapeHtml(
        part.expected,
      )}</code></td><td><code>${escapeHtml(part.got ?? '')}</code></td><td>${escapeHtml(part.why ?? '')}</td></tr>`,
  );
  const partsTable =
    parts.length === 0
      ? '<p class="note">No parts were scored.</p>'
      : `<table><thead><tr><th scope="col">Part</th><th scope="col">Correct</th><th scope="col">Expected</th><th scope="col">Got</th><th scope="col">Why</th></tr></thead>
<tbody>${parts.join('\n')}</tbody></table>`;
  const error = result.error ? `<p><strong>Error:</strong> <code>${escapeHtml(result.error)}</code></p>` : '';
  const lines = result.transcript === '' ? 0 : result.transcript.split('\n').length;
  return `<section class="failed-case" id="${caseAnchor(result.id)}">
<h3>${escapeHtml(result.id)} <span class="note">(${escapeHtml(result.level)}, ${escapeHtml(result.status)}, ${partsCorrect(result)} parts correct, ${formatCount(result.toolCalls)} tool calls of which ${formatCount(result.failedToolCalls)} failed)</span></h3>
${error}${partsTable}${publishedLine(result)}
<details><summary>Transcript (${formatCount(lines)} ${lines === 1 ? 'line' : 'lines'})</summary>
<pre>${escapeHtml(result.transcript)}</pre>
</details>
</section>`;
}

/** Renders a run as one self-contained `report.html`. */
export function renderEvalReport(summary: EvalSummary, results: CaseResult[]): string {
  const started = Date.parse(summary.startedAt);
  const tokens = summary.tokens.prompt + summary.tokens.completion;
  const slowest = [...results].sort((a, b) => b.wallMs - a.wallMs).slice(0, SLOWEST_SHOWN);
  const failures = results.filter(caseFailed);
  const published = hasPublished(results);
  const title = `tally eval: ${summary.suite} with ${summary.model}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${EVAL_REPORT_POLICY}">
<title>${escapeHtml(title)}</title>
<style>${EVAL_REPORT_STYLE}</style>
</head>
<body>
<main>
<header>
<h1>${escapeHtml(title)}</h1>
<dl class="header">
<dt>Suite</dt><dd>${escapeHtml(summary.suite)}</dd>
<dt>Model</dt><dd>${escapeHtml(summary.model)}</dd>
<dt>Started</dt><dd>${escapeHtml(Number.isNaN(started) ? summary.startedAt : formatUtc(started))}</dd>
<dt>Wall time</dt><dd>${escapeHtml(formatDuration(summary.wallMs))}</dd>
<dt>Tokens</dt><dd>${formatCount(tokens)} (${escapeHtml(describeTokens(summary.tokens))})</dd>
<dt>Cost</dt><dd>${escapeHtml(formatCost(summary.costUsd))}</dd>
${groundingHeader(summary)}${playbookChoiceHeader(summary)}<dt>Per case (median)</dt><dd>${escapeHtml(
    `${formatDuration(summary.perCase.wallMsP50)} wall, ${formatDuration(summary.perCase.modelMsP50)} waiting for the model, ${formatCount(summary.perCase.tokensP50)} tokens`,
  )}</dd>
</dl>
</header>
${accuracyTable(summary)}
${statusTable(summary)}
${groundingSection(summary, results)}
${playbookChoiceSection(summary, results)}
${referenceTable(summary)}
<h2>Cases</h2>
${caseTable('cases', results, published)}
<h2>The ${formatCount(slowest.length)} slowest cases</h2>
${caseTable('slowest', slowest, published)}
<h2>Failed cases (${formatCount(failures.length)})</h2>
${failures.length === 0 ? '<p>Every case was correct and ran to its end.</p>' : failures.map(failedCase).join('\n')}
</main>
</body>
</html>
`;
}
