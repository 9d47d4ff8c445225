/**
 * Published results a `tally eval` run can be held against, per suite, and the HTML page's table that sets the
 * run's own accuracy by question beside them, by tally's scorer and, for DABench, as the benchmark's script scores.
 */

import { escapeHtml } from '../report/export-html.js';
import { PUBLISHED_LABEL } from './dabench-published-score.js';
import type { EvalSummary } from './eval-case.js';
import { numberCell } from './eval-report-cells.js';
import { publishedReferenceRow } from './eval-report-published.js';
import { formatCount, formatPercent } from './format-eval-numbers.js';

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

export function referenceTable(summary: EvalSummary): string {
  const figures = REFERENCE_FIGURES[summary.suite];
  if (!figures) return '';
  const rows = figures.map(
    (figure) =>
      `<tr><td>${escapeHtml(figure.system)}</td><td>${escapeHtml(figure.model)}</td>${numberCell(
        formatPercent(figure.accuracy),
      )}<td>${escapeHtml(figure.metric)}</td><td>${escapeHtml(figure.source)}</td></tr>`,
  );
  const own = `<tr class="this-run"><td>This run, tally's scorer</td><td>${escapeHtml(summary.model)}</td>${numberCell(
    formatPercent(summary.overall.byQuestion),
  )}<td>by question</td><td>${formatCount(summary.overall.cases)} cases</td></tr>`;
  return `<h2>Published figures</h2>
<table id="reference"><thead><tr><th scope="col">System</th><th scope="col">Model</th><th scope="col">Accuracy</th><th scope="col">Metric</th><th scope="col">Source</th></tr></thead>
<tbody>${[...rows, own, publishedReferenceRow(summary)].filter(Boolean).join('\n')}</tbody></table>
<p class="note">Published figures are for the whole DABench question set: a run of a subset compares only loosely.${
    summary.published
      ? ` They were scored by the benchmark's own script: the row ${escapeHtml(PUBLISHED_LABEL)} is the one that compares with them.`
      : ''
  }</p>`;
}
