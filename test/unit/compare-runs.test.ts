import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/eval/compare-runs.js';
import type { Accuracy, CaseResult, EvalSummary } from '../../src/eval/eval-case.js';
import type { EvalRun } from '../../src/eval/write-eval-run.js';

function result(id: string, correct: boolean, level = 'easy'): CaseResult {
  return {
    id,
    suite: 'dabench',
    level,
    concepts: [],
    status: 'done',
    correct,
    parts: [{ name: 'answer', correct, expected: '1' }],
    answer: '',
    toolCalls: 1,
    failedToolCalls: 0,
    tokens: { prompt: 100, completion: 10 },
    modelCalls: 1,
    modelMs: 1_000,
    wallMs: 2_000,
    transcript: '',
  };
}

const accuracy = (
  cases: number,
  byQuestion: number,
  bySubQuestion = byQuestion,
  proportional = byQuestion,
): Accuracy => ({
  cases,
  byQuestion,
  bySubQuestion,
  proportional,
});

function summary(fields: Partial<EvalSummary>): EvalSummary {
  return {
    suite: 'dabench',
    model: 'model-a',
    startedAt: '2025-03-01T10:00:00.000Z',
    wallMs: 60_000,
    overall: accuracy(4, 0.5),
    byLevel: {},
    byConcept: {},
    statuses: { done: 4, time_budget: 0, token_budget: 0, error: 0 },
    tokens: { prompt: 800, completion: 200 },
    perCase: { wallMsP50: 2_000, modelMsP50: 1_000, tokensP50: 250 },
    ...fields,
  };
}

/** The cells of the table row whose label is `label` (cells are separated by two or more spaces). */
function row(text: string, label: string): string[] {
  const line = text.split('\n').find((candidate) => candidate.split(/ {2,}/)[0] === label);
  if (line === undefined) throw new Error(`no row ${label} in:\n${text}`);
  return line.split(/ {2,}/).slice(1);
}

/** The ids listed under `heading`, or [] when it says none. */
function listed(text: string, heading: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`${heading} (`) || line === `${heading}: none`);
  if (start === -1) throw new Error(`no list ${heading} in:\n${text}`);
  if (lines[start]?.endsWith(': none')) return [];
  const ids: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('  ')) break;
    ids.push(
      ...line
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    );
  }
  return ids;
}

describe('compareRuns', () => {
  const a: EvalRun = {
    summary: summary({}),
    results: [
      result('dabench-10', true),
      result('dabench-2', true),
      result('dabench-3', false),
      result('dabench-4', true),
      result('dabench-only-a', true),
    ],
  };
  const b: EvalRun = {
    summary: summary({ model: 'model-b' }),
    results: [
      result('dabench-3', true),
      result('dabench-2', false),
      result('dabench-10', false),
      result('dabench-4', true),
      result('dabench-only-b', false),
    ],
  };

  it('lists the cases that flipped each way, in id order with numbers compared as numbers', () => {
    const text = compareRuns(a, b);
    expect(listed(text, 'Correct in A, not in B')).toEqual(['dabench-2', 'dabench-10']);
    expect(listed(text, 'Correct in B, not in A')).toEqual(['dabench-3']);
    expect(text).toContain('Correct in A, not in B (2):');
  });

  it('lists the cases only one run has, whatever their verdict', () => {
    const text = compareRuns(a, b);
    expect(listed(text, 'Only in A')).toEqual(['dabench-only-a']);
    expect(listed(text, 'Only in B')).toEqual(['dabench-only-b']);
  });

  it('says none when the same cases have the same verdicts', () => {
    const text = compareRuns(a, a);
    expect(listed(text, 'Correct in A, not in B')).toEqual([]);
    expect(listed(text, 'Correct in B, not in A')).toEqual([]);
    expect(listed(text, 'Only in A')).toEqual([]);
    expect(text).toContain('Only in B: none');
  });

  it('wraps a long list of ids without losing any', () => {
    const many = Array.from({ length: 60 }, (_, index) => result(`dabench-${index}`, true));
    const text = compareRuns({ summary: a.summary, results: many }, { summary: b.summary, results: [] });
    const ids = listed(text, 'Only in A');
    expect(ids).toEqual(many.map((each) => each.id));
    expect(Math.max(...text.split('\n').map((line) => line.length))).toBeLessThanOrEqual(110);
  });

  it('shows accuracy three ways with the change in percentage points', () => {
    const text = compareRuns(
      { summary: summary({ overall: accuracy(4, 0.5, 0.6, 0.55) }), results: [] },
      { summary: summary({ overall: accuracy(4, 0.75, 0.5, 0.55) }), results: [] },
    );
    expect(row(text, 'overall: cases')).toEqual(['4', '4']);
    expect(row(text, 'overall: by question')).toEqual(['50.0%', '75.0%', '+25.0 pts']);
    expect(row(text, 'overall: by sub-question')).toEqual(['60.0%', '50.0%', '−10.0 pts']);
    expect(row(text, 'overall: proportional')).toEqual(['55.0%', '55.0%', '+0.0 pts']);
  });

  it('shows each level of either run in level order, with a dash where a run has none', () => {
    const text = compareRuns(
      { summary: summary({ byLevel: { hard: accuracy(2, 0), easy: accuracy(2, 1) } }), results: [] },
      { summary: summary({ byLevel: { easy: accuracy(3, 2 / 3), medium: accuracy(1, 1) } }), results: [] },
    );
    const levels = text.split('\n').filter((line) => line.startsWith('level '));
    expect(levels.map((line) => line.split(/ {2,}/)[0])).toEqual([
      'level easy: by question',
      'level medium: by question',
      'level hard: by question',
    ]);
    expect(row(text, 'level easy: by question')).toEqual(['100.0% of 2', '66.7% of 3', '−33.3 pts']);
    expect(row(text, 'level medium: by question')).toEqual(['—', '100.0% of 1']);
    expect(row(text, 'level hard: by question')).toEqual(['0.0% of 2', '—']);
  });

  it('shows tokens, time and cost with the change relative to A', () => {
    const text = compareRuns(
      { summary: summary({ costUsd: 2 }), results: [] },
      {
        summary: summary({
          tokens: { prompt: 1_200, completion: 300 },
          wallMs: 90_000,
          perCase: { wallMsP50: 1_500, modelMsP50: 1_000, tokensP50: 375 },
          costUsd: 1.5,
          statuses: { done: 2, time_budget: 1, token_budget: 0, error: 1 },
        }),
        results: [],
      },
    );
    expect(row(text, 'tokens')).toEqual(['1,000', '1,500', '+50%']);
    expect(row(text, 'tokens in')).toEqual(['800', '1,200', '+50%']);
    expect(row(text, 'tokens per case (p50)')).toEqual(['250', '375', '+50%']);
    expect(row(text, 'wall time')).toEqual(['1 min 00 s', '1 min 30 s', '+50%']);
    expect(row(text, 'wall time per case (p50)')).toEqual(['2.0 s', '1.5 s', '−25%']);
    expect(row(text, 'model time per case (p50)')).toEqual(['1.0 s', '1.0 s', '+0%']);
    expect(row(text, 'cost')).toEqual(['$2.0000', '$1.5000', '−25%']);
    expect(row(text, 'cases not run to their end')).toEqual(['0', '2']);
  });

  it('shows a dash for cost when no price table named the model, and no change', () => {
    const text = compareRuns({ summary: summary({}), results: [] }, { summary: summary({ costUsd: 1 }), results: [] });
    expect(row(text, 'cost')).toEqual(['—', '$1.0000']);
  });

  it('shows the share of figures grounded with the change in points, and a dash for a run written before it', () => {
    const text = compareRuns(
      { summary: summary({ grounding: { figures: 40, grounded: 39, share: 39 / 40 } }), results: [] },
      { summary: summary({ grounding: { figures: 50, grounded: 45, share: 0.9 } }), results: [] },
    );
    expect(row(text, 'figures grounded')).toEqual(['97.5% (39 of 40)', '90.0% (45 of 50)', '−7.5 pts']);
    const older = compareRuns(
      { summary: summary({}), results: [] },
      { summary: summary({ grounding: { figures: 0, grounded: 0, share: 1 } }), results: [] },
    );
    expect(row(older, 'figures grounded')).toEqual(['—', 'no figures']);
  });

  it('shows the playbook choice with the change in points, a dash for a run written before it, no rows for neither', () => {
    const choice = (precision: number, recall: number) => ({
      cases: 13,
      precision,
      recall,
      truePositives: 11,
      falsePositives: 0,
      falseNegatives: 1,
      wrong: 0,
      trueNegatives: 1,
    });
    const text = compareRuns(
      { summary: summary({ playbookChoice: choice(0.8, 11 / 12) }), results: [] },
      { summary: summary({ playbookChoice: choice(1, 1) }), results: [] },
    );
    expect(row(text, 'playbook precision')).toEqual(['80.0%', '100.0%', '+20.0 pts']);
    expect(row(text, 'playbook recall')).toEqual(['91.7%', '100.0%', '+8.3 pts']);
    const older = compareRuns(
      { summary: summary({}), results: [] },
      { summary: summary({ playbookChoice: choice(1, 1) }), results: [] },
    );
    expect(row(older, 'playbook precision')).toEqual(['—', '100.0%']);
    expect(compareRuns(a, b)).not.toContain('playbook');
  });

  it('names both runs and warns when their suites differ', () => {
    const text = compareRuns(a, { summary: summary({ suite: 'telco', model: 'model-b' }), results: [] });
    expect(row(text, 'model')).toEqual(['model-a', 'model-b']);
    expect(row(text, 'started')).toEqual(['2025-03-01 10:00 UTC', '2025-03-01 10:00 UTC']);
    expect(text).toContain('different suites (dabench, telco)');
    expect(compareRuns(a, b)).not.toContain('different suites');
  });
});
