/**
 * The playbook choice of a `tally eval` run: counted over the cases that expect a playbook or none,
 * in the summary, the printed lines and the run's files; a run written before it still loads, prints,
 * renders and compares.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/eval/compare-runs.js';
import { dabenchCases } from '../../src/eval/dabench-suite.js';
import { describeSummary } from '../../src/eval/describe-summary.js';
import type { CaseResult, EvalSummary } from '../../src/eval/eval-case.js';
import { renderEvalReport } from '../../src/eval/eval-report-html.js';
import { loadGoldenCases } from '../../src/eval/golden/golden-suite.js';
import { summariseEval } from '../../src/eval/summarise-eval.js';
import { readEvalRun, writeEvalRun } from '../../src/eval/write-eval-run.js';

function result(id: string, fields: Partial<CaseResult> = {}): CaseResult {
  return {
    id,
    suite: 'golden',
    level: 'rates',
    concepts: [],
    status: 'done',
    correct: true,
    parts: [{ name: 'rate', correct: true, expected: '0.4' }],
    answer: '',
    toolCalls: 1,
    failedToolCalls: 0,
    tokens: { prompt: 10, completion: 1 },
    modelCalls: 2,
    modelMs: 100,
    wallMs: 200,
    transcript: '',
    ...fields,
  };
}

const meta = { suite: 'golden', model: 'm', startedAt: '2025-03-01T10:00:00.000Z', wallMs: 1_000 };

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('the playbook choice of a run', () => {
  it('golden cases expect their playbook (or none), DABench cases none, without a DABench part for it', () => {
    const golden = loadGoldenCases();
    expect(golden.find((evalCase) => evalCase.id === 'golden-churn-model')?.playbook).toBe('churn-prediction.md');
    expect(golden.find((evalCase) => evalCase.id === 'golden-out-of-scope')?.playbook).toBeNull();
    const [dabench] = dabenchCases([
      {
        id: 0,
        question: 'Mean fare?',
        concepts: [],
        constraints: '',
        format: '@mean_fare[x]',
        file_name: 'test_ave.csv',
        level: 'easy',
        labels: [['mean_fare', '34.65']],
      },
    ]);
    expect(dabench?.playbook).toBeNull();
    const outcome = { answer: '@mean_fare[34.65]', sections: [], questions: [], declined: false, transcript: '' };
    expect(dabench?.score({ ...outcome, playbook: 'eda-overview.md' }).map((part) => part.name)).toEqual(['mean_fare']);
  });

  it('is scored over the cases that expect something, and left out when none does', () => {
    const results = [
      result('golden-a', { playbook: 'churn-drivers.md', expectedPlaybook: 'churn-drivers.md' }),
      result('golden-b', { playbook: 'churn-drivers.md', expectedPlaybook: 'table-consistency-audit.md' }),
      result('golden-c', { expectedPlaybook: 'churn-prediction.md' }),
      result('dabench-1', { playbook: 'eda-overview.md', expectedPlaybook: null }),
      result('dabench-2', { expectedPlaybook: null }),
      result('no-expectation', { playbook: 'eda-overview.md' }),
    ];
    const summary = summariseEval(results, meta);
    expect(summary.playbookChoice).toEqual({
      cases: 5,
      precision: 1 / 3,
      recall: 1 / 3,
      truePositives: 1,
      falsePositives: 1,
      falseNegatives: 1,
      wrong: 1,
      trueNegatives: 1,
    });
    expect(describeSummary(summary)).toContain(
      'playbook choice: precision 33.3%, recall 33.3% over 5 cases (1 wrong playbook, 1 none where one fits, 1 where none fits)',
    );
    const none = summariseEval([result('no-expectation')], meta);
    expect(none).not.toHaveProperty('playbookChoice');
    expect(describeSummary(none)).not.toContain('playbook choice');
  });

  it('prints a run where every case chose right without a list of misses', () => {
    const summary = summariseEval(
      [
        result('golden-a', { playbook: 'churn-drivers.md', expectedPlaybook: 'churn-drivers.md' }),
        result('golden-out-of-scope', { expectedPlaybook: null }),
      ],
      meta,
    );
    expect(describeSummary(summary).split('\n')).toContain(
      'playbook choice: precision 100.0%, recall 100.0% over 2 cases',
    );
  });

  it('is written to summary.json, results.jsonl and report.html, and read back', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'tally-eval-run-'));
    folders.push(folder);
    const results = [
      result('golden-a', { playbook: 'churn-drivers.md', expectedPlaybook: 'churn-drivers.md' }),
      result('dabench-1', { expectedPlaybook: null }),
    ];
    const summary = summariseEval(results, meta);
    const paths = await writeEvalRun(folder, summary, results);
    expect(JSON.parse(await readFile(paths.summaryPath, 'utf8')).playbookChoice).toMatchObject({
      cases: 2,
      precision: 1,
      recall: 1,
    });
    expect((await readFile(paths.resultsPath, 'utf8')).split('\n')[1]).toContain('"expectedPlaybook":null');
    expect(await readFile(paths.reportPath, 'utf8')).toContain('<h2>Playbook choice</h2>');
    expect(await readEvalRun(folder)).toEqual({ summary, results });
  });

  it('a run written before it loads, prints, renders and compares, with a dash for its figures', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'tally-eval-old-'));
    folders.push(folder);
    const { playbookChoice: _, ...older } = summariseEval([result('golden-a')], meta);
    await writeFile(join(folder, 'summary.json'), JSON.stringify(older));
    await writeFile(join(folder, 'results.jsonl'), `${JSON.stringify(result('golden-a'))}\n`);
    const run = await readEvalRun(folder);
    expect(run.summary.playbookChoice).toBeUndefined();
    expect(describeSummary(run.summary)).not.toContain('playbook choice');
    expect(renderEvalReport(run.summary, run.results)).not.toContain('Playbook choice');
    const newer: EvalSummary = summariseEval(
      [result('golden-a', { playbook: 'churn-drivers.md', expectedPlaybook: 'churn-drivers.md' })],
      meta,
    );
    const text = compareRuns(run, { summary: newer, results: [] });
    expect(text).toMatch(/^playbook precision {2,}— {2,}100\.0%$/m);
    expect(text).toMatch(/^playbook recall {2,}— {2,}100\.0%$/m);
  });
});
