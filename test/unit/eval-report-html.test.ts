import { describe, expect, it } from 'vitest';
import type { Accuracy, CaseResult, EvalSummary } from '../../src/eval/eval-case.js';
import { renderEvalReport } from '../../src/eval/eval-report-html.js';

const ATTACK =
  '</pre></details><script>alert("pwned")</script><img src="https://evil.example/x.png" onerror="alert(1)">';

function result(id: string, fields: Partial<CaseResult> = {}): CaseResult {
  return {
    id,
    suite: 'dabench',
    level: 'easy',
    concepts: ['Summary Statistics'],
    status: 'done',
    correct: true,
    parts: [{ name: 'mean_fare', correct: true, expected: '34.65', got: '34.65' }],
    answer: '@mean_fare[34.65]',
    toolCalls: 2,
    failedToolCalls: 0,
    tokens: { prompt: 1_000, completion: 100 },
    modelCalls: 2,
    modelMs: 1_500,
    wallMs: 3_000,
    costUsd: 0.0012,
    grounding: { figures: 1, grounded: 1, ungrounded: [] },
    transcript: 'user: what is the mean fare?\nagent: 34.65',
    ...fields,
  };
}

const accuracy = (cases: number, byQuestion: number, bySubQuestion: number, proportional: number): Accuracy => ({
  cases,
  byQuestion,
  bySubQuestion,
  proportional,
});

function summary(fields: Partial<EvalSummary> = {}): EvalSummary {
  return {
    suite: 'dabench',
    model: 'gpt-4o-mini',
    startedAt: '2025-03-01T10:00:00.000Z',
    wallMs: 754_000,
    overall: accuracy(3, 2 / 3, 0.75, 0.7),
    byLevel: { hard: accuracy(1, 0, 0.5, 0.5), easy: accuracy(2, 1, 1, 1) },
    byConcept: { 'Summary Statistics': accuracy(2, 1, 1, 1), 'Correlation Analysis': accuracy(1, 0, 0.5, 0.5) },
    statuses: { done: 2, time_budget: 0, token_budget: 0, error: 1 },
    tokens: { prompt: 12_345, completion: 678 },
    costUsd: 0.0456,
    perCase: { wallMsP50: 3_000, modelMsP50: 1_500, tokensP50: 1_100 },
    grounding: { figures: 4, grounded: 3, share: 0.75 },
    ...fields,
  };
}

const results: CaseResult[] = [
  result('dabench-1'),
  result('dabench-2', {
    level: 'hard',
    concepts: ['Correlation Analysis'],
    correct: false,
    parts: [
      { name: 'r', correct: true, expected: '0.42', got: '0.42' },
      { name: 'p_value', correct: false, expected: '0.001', got: '<b>0.5</b>', why: 'off by <i>far</i>' },
    ],
    transcript: `agent: here you go ${ATTACK}`,
    wallMs: 9_000,
    grounding: { figures: 3, grounded: 2, ungrounded: ['<b>0.5</b>'] },
  }),
  result('dabench-3"><script>x</script>', {
    status: 'error',
    correct: false,
    error: 'kernel died <oops>',
    grounding: { figures: 0, grounded: 0, ungrounded: [] },
  }),
];

/** The HTML of the section under the h2 whose text starts with `heading`, up to the next h2. */
function section(html: string, heading: string): string {
  const start = html.indexOf(`<h2>${heading}`);
  if (start === -1) throw new Error(`no section ${heading}`);
  const end = html.indexOf('<h2>', start + 4);
  return html.slice(start, end === -1 ? undefined : end);
}

/** The text of each row of the table with this id (tags dropped, cells joined by |). */
function tableRows(html: string, id: string): string[] {
  const table = new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`).exec(html)?.[1];
  if (table === undefined) throw new Error(`no table ${id}`);
  return [...table.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)]
      .map((cell) => (cell[1] ?? '').replace(/<[^>]+>/g, ''))
      .join('|'),
  );
}

describe('renderEvalReport', () => {
  const html = renderEvalReport(summary(), results);

  it('escapes every piece of model and dataset text: no tag but its own', () => {
    const tags = new Set([...html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)/g)].map((match) => match[1]?.toLowerCase()));
    const own =
      'html head meta title style body main header h1 h2 h3 dl dt dd table thead tbody tr th td p span a code section details summary pre strong';
    expect([...tags].filter((tag) => !own.split(' ').includes(tag ?? ''))).toEqual([]);
    expect(html).not.toMatch(/<script|<img|<b>|<i>|<oops>|onerror="/i);
    expect(html).toContain('&#60;script&#62;alert(&#34;pwned&#34;)&#60;/script&#62;');
    expect(html).toContain('kernel died &#60;oops&#62;');
    // A case id cannot break out of the attribute it is an anchor in.
    expect(html).toContain('href="#case-dabench-3&#34;&#62;&#60;script&#62;x&#60;/script&#62;"');
  });

  it('forbids loading and running anything, whatever slips through', () => {
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:;`,
    );
    expect(html).not.toMatch(/\b(?:src|href)="(?!#)/);
  });

  it('heads the page with the suite, model, date, wall time, tokens and cost', () => {
    const header = /<header>([\s\S]*?)<\/header>/.exec(html)?.[1] ?? '';
    expect(header).toContain('<dt>Suite</dt><dd>dabench</dd>');
    expect(header).toContain('<dt>Model</dt><dd>gpt-4o-mini</dd>');
    expect(header).toContain('<dt>Started</dt><dd>2025-03-01 10:00 UTC</dd>');
    expect(header).toContain('<dt>Wall time</dt><dd>12 min 34 s</dd>');
    expect(header).toContain('<dt>Tokens</dt><dd>13,023 (12,345 in / 678 out)</dd>');
    expect(header).toContain('<dt>Cost</dt><dd>$0.0456</dd>');
    expect(header).toContain('<dt>Figures grounded</dt><dd>75.0% (3 of 4)</dd>');
  });

  it('shows the share of figures grounded, and lists per case the figures found in no result', () => {
    const grounding = section(html, 'Figures grounded');
    expect(grounding).toContain(
      'Of the figures the cases posted in answers and report sections, 75.0% (3 of 4) were found in a tool result',
    );
    expect(tableRows(html, 'ungrounded')).toEqual([
      'Case|Figures grounded|Not found in any result',
      'dabench-2|66.7% (2 of 3)|&#60;b&#62;0.5&#60;/b&#62;',
    ]);
    const clean = renderEvalReport(summary({ grounding: { figures: 1, grounded: 1, share: 1 } }), [
      result('dabench-1'),
    ]);
    expect(section(clean, 'Figures grounded')).toContain('Every figure posted was found in a tool result.');
    const none = renderEvalReport(summary({ grounding: { figures: 0, grounded: 0, share: 1 } }), []);
    expect(section(none, 'Figures grounded')).toContain('No case posted a figure.');
  });

  it('leaves grounding out of a run written before eval measured it', () => {
    const { grounding: _summary, ...older } = summary();
    const { grounding: _result, ...olderResult } = result('dabench-1');
    const page = renderEvalReport(older, [olderResult]);
    expect(page).not.toContain('<h2>Figures grounded');
    expect(page).not.toContain('<dt>Figures grounded');
    expect(tableRows(page, 'cases')[1]).toBe('dabench-1|easy|yes|done|1/1|—|1,000|—|—|100|1.5 s|3.0 s|$0.0012');
  });

  it('shows the playbook choice: precision, recall, the counts, and the cases that chose otherwise', () => {
    const choice = {
      cases: 3,
      precision: 0.5,
      recall: 1,
      truePositives: 1,
      falsePositives: 1,
      falseNegatives: 0,
      wrong: 0,
      trueNegatives: 1,
    };
    const page = renderEvalReport(summary({ playbookChoice: choice }), [
      result('golden-a', { suite: 'golden', playbook: 'churn-drivers.md', expectedPlaybook: 'churn-drivers.md' }),
      result('dabench-1', { playbook: 'eda-overview.md', expectedPlaybook: null }),
      result('dabench-2', { expectedPlaybook: null }),
      result('dabench-3', { playbook: 'eda-overview.md' }),
    ]);
    const header = /<header>([\s\S]*?)<\/header>/.exec(page)?.[1] ?? '';
    expect(header).toContain(
      '<dt>Playbook choice</dt><dd>precision 50.0%, recall 100.0% over 3 cases (1 where none fits)</dd>',
    );
    expect(tableRows(page, 'playbook-choice')).toEqual([
      'Precision: the right playbook, of all followed|50.0%',
      'Recall: the right playbook, of all cases that should follow one|100.0%',
      'The right playbook|1',
      'Another playbook than the right one|0',
      'None, where one fits|0',
      'A playbook, where none fits|1',
      'None, where none fits|1',
    ]);
    expect(section(page, 'Playbook choice')).toContain('Over the 3 cases that expect a playbook or none');
    // dabench-3 expected nothing, so it is not listed whatever it followed.
    expect(tableRows(page, 'playbook-otherwise')).toEqual([
      'Case|Should follow|Followed',
      'dabench-1|none|eda-overview.md',
    ]);
    const right = renderEvalReport(summary({ playbookChoice: { ...choice, precision: 1, falsePositives: 0 } }), [
      result('dabench-2', { expectedPlaybook: null }),
    ]);
    expect(section(right, 'Playbook choice')).toContain(
      'Every case followed the playbook it should, or none where none fits.',
    );
  });

  it('leaves the playbook choice out of a run written before eval recorded it', () => {
    expect(html).not.toContain('<h2>Playbook choice');
    expect(html).not.toContain('<dt>Playbook choice');
  });

  it('tabulates accuracy overall, by level in level order and by concept, as percentages', () => {
    expect(tableRows(html, 'accuracy')).toEqual([
      '|Cases|By question|By sub-question|Proportional',
      'Overall|3|66.7%|75.0%|70.0%',
      'By level',
      'easy|2|100.0%|100.0%|100.0%',
      'hard|1|0.0%|50.0%|50.0%',
      'By concept',
      'Correlation Analysis|1|0.0%|50.0%|50.0%',
      'Summary Statistics|2|100.0%|100.0%|100.0%',
    ]);
  });

  it('counts each status', () => {
    expect(tableRows(html, 'statuses').slice(1)).toEqual(['done|2', 'time_budget|0', 'token_budget|0', 'error|1']);
  });

  it('shows the published DABench figures next to the run, and none for other suites', () => {
    const rows = tableRows(html, 'reference');
    expect(rows.some((row) => row.startsWith('ReAct agent|gpt-4-0613|78.7%'))).toBe(true);
    expect(rows.some((row) => row.startsWith('Data Interpreter|gpt-4o|94.9%'))).toBe(true);
    expect(rows.at(-1)).toBe("This run, tally's scorer|gpt-4o-mini|66.7%|by question|3 cases");
    expect(renderEvalReport(summary({ suite: 'telco' }), results)).not.toContain('id="reference"');
  });

  it('lists every case with its parts, figures grounded, tokens, times and cost', () => {
    expect(tableRows(html, 'cases')).toEqual([
      'Case|Level|Correct|Status|Parts|Figures grounded|Tokens in|Repeated prefix|Cached|Tokens out|Model time|Wall time|Cost',
      'dabench-1|easy|yes|done|1/1|100.0% (1 of 1)|1,000|—|—|100|1.5 s|3.0 s|$0.0012',
      'dabench-2|hard|no|done|1/2|66.7% (2 of 3)|1,000|—|—|100|1.5 s|9.0 s|$0.0012',
      'dabench-3&#34;&#62;&#60;script&#62;x&#60;/script&#62;|easy|no|error|1/1|no figures|1,000|—|—|100|1.5 s|3.0 s|$0.0012',
    ]);
  });

  it('lists the ten slowest cases, slowest first', () => {
    const many = Array.from({ length: 12 }, (_, index) =>
      result(`case-${index}`, { wallMs: ((index * 7) % 12) * 1_000 }),
    );
    const rows = tableRows(renderEvalReport(summary(), many), 'slowest').slice(1);
    expect(rows.map((row) => row.split('|')[0])).toEqual([
      'case-5',
      'case-10',
      'case-3',
      'case-8',
      'case-1',
      'case-6',
      'case-11',
      'case-4',
      'case-9',
      'case-2',
    ]);
  });

  it('shows each failed case with its parts and its transcript folded, and no correct case', () => {
    const failed = section(html, 'Failed cases');
    expect(failed).toContain('<h2>Failed cases (2)</h2>');
    expect(failed.match(/<section class="failed-case"/g)).toHaveLength(2);
    expect(failed).not.toContain('dabench-1');
    expect(failed).toContain('<td><code>p_value</code></td><td><span class="no">no</span></td>');
    expect(failed).toContain('<code>0.001</code></td><td><code>&#60;b&#62;0.5&#60;/b&#62;</code>');
    expect(failed).toContain('off by &#60;i&#62;far&#60;/i&#62;');
    expect(failed).toMatch(
      /<details><summary>Transcript \(1 line\)<\/summary>\n<pre>agent: here you go &#60;\/pre&#62;/,
    );
    expect(failed).toContain('<strong>Error:</strong> <code>kernel died &#60;oops&#62;</code>');
  });

  it('says so when every case passed', () => {
    const page = renderEvalReport(summary(), [result('dabench-1')]);
    expect(section(page, 'Failed cases')).toContain('Every case was correct and ran to its end.');
  });
});
