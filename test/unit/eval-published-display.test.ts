import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/eval/compare-runs.js';
import { dabenchCases, loadDabench } from '../../src/eval/dabench-suite.js';
import { describeSummary } from '../../src/eval/describe-summary.js';
import type { CaseResult, PublishedScore } from '../../src/eval/eval-case.js';
import { renderEvalReport } from '../../src/eval/eval-report-html.js';
import { summariseEval } from '../../src/eval/summarise-eval.js';

const meta = { suite: 'dabench', model: 'gpt-4o-mini', startedAt: '2025-03-01T10:00:00.000Z', wallMs: 60_000 };

function result(id: string, correct: boolean, published?: PublishedScore): CaseResult {
  return {
    id,
    suite: 'dabench',
    level: 'easy',
    concepts: ['Summary Statistics'],
    status: 'done',
    correct,
    parts: [{ name: 'mean', correct, expected: '3.14', got: '3.14' }],
    answer: '@mean[3.14⚠]',
    toolCalls: 1,
    failedToolCalls: 0,
    tokens: { prompt: 100, completion: 10 },
    modelCalls: 1,
    modelMs: 1_000,
    wallMs: 2_000,
    transcript: '',
    ...(published ? { published } : {}),
  };
}

const marked: PublishedScore = {
  answered: true,
  correct: false,
  parts: [{ name: 'mean', correct: false, expected: '3.14', got: '3.14⚠' }],
};
const right: PublishedScore = {
  answered: true,
  correct: true,
  parts: [{ name: 'mean', correct: true, expected: '3.14', got: '3.14' }],
};
const unanswered: PublishedScore = { answered: false, correct: false, parts: [] };

// Case 1 is right both ways; case 2 right by tally's scorer but marked, so wrong as published; case 3
// had no response, so the published script leaves it out.
const results = [
  result('dabench-1', true, right),
  result('dabench-2', true, marked),
  result('dabench-3', false, unanswered),
];
const summary = summariseEval(results, meta);

/** The text of each row of the table with this id (tags dropped, cells joined by |). */
function tableRows(html: string, id: string): string[] {
  const table = new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`).exec(html)?.[1] ?? '';
  return [...table.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)]
      .map((cell) => (cell[1] ?? '').replace(/<[^>]+>/g, ''))
      .join('|'),
  );
}

describe('DABench scored as published, beside tally', () => {
  it('scores each DABench case both ways, on the answer text', async () => {
    const items = (await loadDabench()).filter((item) => item.id === 734);
    const [evalCase] = dabenchCases(items);
    const published = evalCase?.scoreAsPublished?.(
      '@correlation_coefficient[0.56] @correlation_significance[non-significant]',
    );
    expect(published?.parts.map((part) => part.name)).toEqual(['correlation_coefficient', 'correlation_significance']);
    expect(published?.correct).toBe(true);
  });

  it('sums the published scores over the cases with a response', () => {
    expect(summary.overall.byQuestion).toBeCloseTo(2 / 3);
    expect(summary.published).toEqual({ cases: 3, scored: 2, byQuestion: 0.5, bySubQuestion: 0.5, proportional: 0.5 });
    expect(summariseEval([result('golden-a', true)], meta).published).toBeUndefined();
  });

  it("prints the published accuracies under tally's own, labelled", () => {
    const lines = describeSummary(summary).split('\n');
    expect(lines[0]).toContain("(tally's scorer)");
    expect(lines).toContain(
      'as published (eval_closed_form.py): by question 50.00%, proportional 50.00%, by sub-question 50.00% over 2 of 3 cases (1 with no response, left out)',
    );
  });

  it('shows the published score in the accuracy table, per case, in a failed case and beside the published figures', () => {
    const html = renderEvalReport(summary, results);
    const accuracy = tableRows(html, 'accuracy');
    expect(accuracy.slice(-2)).toEqual(['As published (eval_closed_form.py)', 'Overall|2|50.00%|50.00%|50.00%']);
    expect(html).toContain('The 1 case with no response is left out, as the script leaves them out.');
    expect(tableRows(html, 'cases').map((row) => row.split('|').slice(0, 4).join('|'))).toEqual([
      "Case|Level|Correct (tally's scorer)|As published (eval_closed_form.py)",
      'dabench-1|easy|yes|yes (1/1)',
      'dabench-2|easy|yes|no (0/1)',
      'dabench-3|easy|no|no response',
    ]);
    expect(html).toContain('<strong>As published (eval_closed_form.py):</strong> no response, left out.');
    expect(tableRows(html, 'reference').slice(-2)).toEqual([
      "This run, tally's scorer|gpt-4o-mini|66.7%|by question|3 cases",
      'This run, as published (eval_closed_form.py)|gpt-4o-mini|50.00%|by question|2 cases with a response',
    ]);
  });

  it('shows no published pieces for a run without published scores', () => {
    const golden = [result('golden-a', true)];
    const html = renderEvalReport(summariseEval(golden, { ...meta, suite: 'golden' }), golden);
    expect(html).not.toContain('eval_closed_form.py');
    expect(describeSummary(summariseEval(golden, meta))).not.toContain('eval_closed_form.py');
  });

  it('compares two runs as published, with a dash for a run written before it', () => {
    const { published: _, ...older } = summariseEval([result('dabench-1', true)], meta);
    const text = compareRuns({ summary: older, results: [] }, { summary, results });
    expect(text).toMatch(/as published \(eval_closed_form\.py\): by question +— +50\.00%/);
    expect(text).toMatch(/as published \(eval_closed_form\.py\): cases with a response +— +2/);
    const both = compareRuns(
      { summary, results },
      {
        summary: {
          ...summary,
          published: { cases: 3, scored: 2, bySubQuestion: 0.5, proportional: 0.5, byQuestion: 0.75 },
        },
        results,
      },
    );
    expect(both).toMatch(/by question +50\.00% +75\.00% +\+25\.0 pts/);
  });
});
