/**
 * A `tally eval` run as one self-contained HTML page: accuracy three ways (overall, by level, by
 * concept), the share of posted figures found in a tool result (overall, per case, and the figures
 * that were not), the playbook choice (precision, recall, and the cases that chose otherwise), cost
 * and time per case, the slowest cases, and the failed cases with their
 * transcripts folded. Answers and transcripts come from a model and the datasets, so every piece of text is
 * escaped and the page's policy lets nothing load and nothing run.
 */

import { escapeHtml } from '../report/export-html.js';
import { formatUtc } from '../report/export-markdown.js';
import type { Accuracy, CaseResult, CaseStatus, EvalSummary } from './eval-case.js';
import {
  formatCost,
  formatCount,
  formatDuration,
  formatGrounded,
  formatPercent,
  formatPlaybookChoice,
  sortLevels,
} from './format-eval-numbers.js';

/** A published result the run can be held against. */
interface ReferenceFigure {
  system: string;
  model: string;
  metric: string;
  /** 0–1. */
  accuracy: number;
  source: string;
}

/** Published figures per suite, shown next to the run's own accuracy by question. */
const REFERENCE_FIGURES: Record<string, ReferenceFigure[]> = {
  dabench: [
    {
      system: 'ReAct agent',
      model: 'gpt-4-0613',
      metric: 'by question',
      accuracy: 0.7872,
      source: 'InfiAgent-DABench paper (Hu et al., 2024)',
    },
    {
      system: 'Data Interpreter',
      model: 'gpt-4o',
      metric: 'accuracy as reported',
      accuracy: 0.9493,
      source: 'MetaGPT Data Interpreter paper (Hong et al., 2024)',
    },
  ],
};

const SLOWEST_SHOWN = 10;
const STATUSES: CaseStatus[] = ['done', 'time_budget', 'token_budget', 'error'];

const STYLE = `
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --good: #1a7f37; --bad: #cf222e; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 64rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
h1 { font-size: 1.7rem; margin: 0 0 .75rem; }
h2 { font-size: 1.3rem; margin: 2.25rem 0 .5rem; padding-bottom: .25rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.75rem 0 .4rem; }
dl.header { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; font-size: .9rem; }
dl.header dt { font-weight: 600; color: var(--muted); } dl.header dd { margin: 0; }
table { border-collapse: collapse; width: 100%; font-size: .88rem; margin: .5rem 0; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
thead th, tbody th[colspan] { background: var(--soft); }
td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table#statuses, table#playbook-choice { width: auto; min-width: 20rem; }
h3 .note { font-weight: 400; }
tr.this-run { font-weight: 600; }
.yes { color: var(--good); font-weight: 600; } .no { color: var(--bad); font-weight: 600; }
.note { color: var(--muted); font-size: .88rem; }
code, pre { font: .82rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
td code { white-space: pre-wrap; word-break: break-word; }
details { margin: .5rem 0 1rem; border: 1px solid var(--line); border-radius: 6px; background: var(--soft); }
summary { cursor: pointer; padding: .4rem .75rem; font-weight: 600; }
pre { margin: 0; padding: .75rem; max-height: 40rem; overflow: auto; background: #fff; white-space: pre-wrap; word-break: break-word; }
`;

/** Nothing loads (not even a font or an image URL) and no script runs, whatever a transcript holds. */
const POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** A case failed when a part was wrong or it did not run to its end. */
function failed(result: CaseResult): boolean {
  return !result.correct || result.status !== 'done';
}

function partsCorrect(result: CaseResult): string {
  return `${result.parts.filter((part) => part.correct).length}/${result.parts.length}`;
}

function caseAnchor(id: string): string {
  return escapeHtml(`case-${id}`);
}

function yesNo(correct: boolean): string {
  return correct ? '<span class="yes">yes</span>' : '<span class="no">no</span>';
}

function number(text: string): string {
  return `<td class="number">${escapeHtml(text)}</td>`;
}

function accuracyRow(label: string, accuracy: Accuracy): string {
  return `<tr><th scope="row">${escapeHtml(label)}</th>${number(formatCount(accuracy.cases))}${number(
    formatPercent(accuracy.byQuestion),
  )}${number(formatPercent(accuracy.bySubQuestion))}${number(formatPercent(accuracy.proportional))}</tr>`;
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
</table>
<p class="note">By question: cases with every part correct. By sub-question: correct parts of all parts. Proportional: the mean over cases of each case's share of correct parts.</p>`;
}

function statusTable(summary: EvalSummary): string {
  const rows = STATUSES.map(
    (status) =>
      `<tr><th scope="row">${escapeHtml(status)}</th>${number(formatCount(summary.statuses[status] ?? 0))}</tr>`,
  );
  return `<h2>How the cases ended</h2>
<table id="statuses"><thead><tr><th scope="col">Status</th><th scope="col">Cases</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

function referenceTable(summary: EvalSummary): string {
  const figures = REFERENCE_FIGURES[summary.suite];
  if (!figures) return '';
  const rows = figures.map(
    (figure) =>
      `<tr><td>${escapeHtml(figure.system)}</td><td>${escapeHtml(figure.model)}</td>${number(
        formatPercent(figure.accuracy),
      )}<td>${escapeHtml(figure.metric)}</td><td>${escapeHtml(figure.source)}</td></tr>`,
  );
  const own = `<tr class="this-run"><td>This run (tally)</td><td>${escapeHtml(summary.model)}</td>${number(
    formatPercent(summary.overall.byQuestion),
  )}<td>by question</td><td>${formatCount(summary.overall.cases)} cases</td></tr>`;
  return `<h2>Published figures</h2>
<table id="reference"><thead><tr><th scope="col">System</th><th scope="col">Model</th><th scope="col">Accuracy</th><th scope="col">Metric</th><th scope="col">Source</th></tr></thead>
<tbody>${[...rows, own].join('\n')}</tbody></table>
<p class="note">Published figures are for the whole DABench question set: a run of a subset compares only loosely.</p>`;
}

/** The case's id, linked to its section below when it failed. */
function caseId(result: CaseResult): string {
  return failed(result) ? `<a href="#${caseAnchor(result.id)}">${escapeHtml(result.id)}</a>` : escapeHtml(result.id);
}

/** A case's share of figures grounded; a dash for a result written before eval measured it. */
function grounded(result: CaseResult): string {
  return result.grounding ? formatGrounded(result.grounding) : '—';
}

function caseRow(result: CaseResult): string {
  return `<tr><td>${caseId(result)}</td><td>${escapeHtml(result.level)}</td><td>${yesNo(result.correct)}</td><td>${escapeHtml(
    result.status,
  )}</td>${number(partsCorrect(result))}${number(grounded(result))}${number(formatCount(result.tokens.prompt))}${number(
    formatCount(result.tokens.completion),
  )}${number(formatDuration(result.modelMs))}${number(formatDuration(result.wallMs))}${number(formatCost(result.costUsd))}</tr>`;
}

const CASE_HEADER = `<thead><tr><th scope="col">Case</th><th scope="col">Level</th><th scope="col">Correct</th><th scope="col">Status</th><th scope="col">Parts</th><th scope="col">Figures grounded</th><th scope="col">Tokens in</th><th scope="col">Tokens out</th><th scope="col">Model time</th><th scope="col">Wall time</th><th scope="col">Cost</th></tr></thead>`;

function caseTable(id: string, results: CaseResult[]): string {
  return `<table id="${id}">${CASE_HEADER}
<tbody>${results.map(caseRow).join('\n')}</tbody></table>`;
}

/** The header's line on grounding, for runs that measured it. */
function groundingHeader(summary: EvalSummary): string {
  return summary.grounding
    ? `<dt>Figures grounded</dt><dd>${escapeHtml(formatGrounded(summary.grounding))}</dd>\n`
    : '';
}

function groundingSection(summary: EvalSummary, results: CaseResult[]): string {
  const { grounding } = summary;
  if (!grounding) return '';
  const heading = `<h2>Figures grounded</h2>`;
  if (grounding.figures === 0) return `${heading}\n<p>No case posted a figure.</p>`;
  const flagged = results.filter((result) => (result.grounding?.ungrounded.length ?? 0) > 0);
  const rows = flagged.map(
    (result) =>
      `<tr><td>${caseId(result)}</td>${number(grounded(result))}<td><code>${escapeHtml(
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

/** The header's line on the playbook choice, for runs that recorded it. */
function playbookChoiceHeader(summary: EvalSummary): string {
  return summary.playbookChoice
    ? `<dt>Playbook choice</dt><dd>${escapeHtml(formatPlaybookChoice(summary.playbookChoice))}</dd>\n`
    : '';
}

function playbookChoiceSection(summary: EvalSummary, results: CaseResult[]): string {
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
${rows.map(([label, value]) => `<tr><th scope="row">${escapeHtml(label)}</th>${number(value)}</tr>`).join('\n')}
</tbody></table>
<p class="note">Over the ${formatCount(choice.cases)} cases that expect a playbook or none (a golden case names its playbook; a DABench question on its own CSV expects none). Not part of the accuracy above, except as the golden cases' playbook part.</p>
${list}`;
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
${error}${partsTable}
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
  const failures = results.filter(failed);
  const title = `tally eval: ${summary.suite} with ${summary.model}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${POLICY}">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
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
<dt>Tokens</dt><dd>${formatCount(tokens)} (${formatCount(summary.tokens.prompt)} in, ${formatCount(summary.tokens.completion)} out)</dd>
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
${caseTable('cases', results)}
<h2>The ${formatCount(slowest.length)} slowest cases</h2>
${caseTable('slowest', slowest)}
<h2>Failed cases (${formatCount(failures.length)})</h2>
${failures.length === 0 ? '<p>Every case was correct and ran to its end.</p>' : failures.map(failedCase).join('\n')}
</main>
</body>
</html>
`;
}
