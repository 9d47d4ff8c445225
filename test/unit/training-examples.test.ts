/**
 * Fine-tuning data from reviewed work: only accepted sections, at their accepted version, become
 * examples; revisions become preference pairs; every line passes an independent format check.
 */
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/agent/log-event.js';
import { addDraft, type Cell, decide, emptyReport, type Report } from '../../src/report/report.js';
import { buildTrainingData, DEFAULT_TRAINING_SYSTEM_PROMPT } from '../../src/training/training-examples.js';
import { validateChatExampleLine, validatePreferenceLine } from '../support/fine-tuning-format.js';

const sql = (code: string, extra: Partial<Cell> = {}): Cell => ({
  language: 'sql',
  code,
  author: 'model',
  database: 'telco',
  figures: [],
  ranAt: 1,
  ...extra,
});
const python = (code: string, extra: Partial<Cell> = {}): Cell => ({
  language: 'python',
  code,
  author: 'model',
  figures: [],
  ranAt: 1,
  ...extra,
});

function draft(report: Report, request: string, title: string, cells: Cell[], revises?: string) {
  return addDraft(report, {
    title,
    narrative: `Narrative of ${title}.`,
    request,
    cells,
    figures: [],
    at: 100,
    ...(revises ? { revises } : {}),
  }).section.id;
}

/** One report with every kind of section, and the markers that must or must not reach the data. */
function reviewedReport(): Report {
  const report = emptyReport('slack:C1:1', 0);
  const overview = draft(report, 'Give me an overview of customers', 'Customer overview', [
    sql('SELECT * FROM customers', { dataframe: 'customers', rows: 7043 }),
    python('customers.describe()', { output: 'count 7043' }),
  ]);
  decide(report, overview, { action: 'accept', by: 'U1', at: 101 });

  const churn = draft(report, 'What drives churn?', 'Churn drivers v1', [sql('SELECT churn FROM REJECTED_V1_TABLE')]);
  decide(report, churn, { action: 'revise', by: 'U1', at: 102, feedback: 'REVIEWER_FEEDBACK use tenure' });
  draft(report, '', 'Churn drivers v2', [sql('SELECT churn, tenure FROM accounts'), python('plot()')], churn);
  decide(report, churn, { action: 'accept', by: 'U1', at: 103 });

  const dropped = draft(report, 'DISCARDED_REQUEST', 'Dropped', [python('DISCARDED_CODE')]);
  decide(report, dropped, { action: 'discard', by: 'U1', at: 104 });
  draft(report, 'STILL_DRAFT_REQUEST', 'Pending', [python('DRAFT_CODE')]);
  const awaiting = draft(report, 'AWAITING_REQUEST', 'Awaiting', [python('AWAITING_CODE')]);
  decide(report, awaiting, { action: 'revise', by: 'U1', at: 105, feedback: 'more' });

  const edited = draft(report, 'Revenue by plan', 'Revenue', [
    sql('SELECT plan, SUM(revenue) FROM billing GROUP BY plan', { author: 'human', output: '3 rows' }),
  ]);
  decide(report, edited, { action: 'accept', by: 'U1', at: 106 });

  const twice = draft(report, 'Tenure model', 'Model v1', [python('fit_v1()')]);
  decide(report, twice, { action: 'revise', by: 'U1', at: 107, feedback: 'no' });
  draft(report, '', 'Model v2', [python('fit_v2()')], twice);
  decide(report, twice, { action: 'revise', by: 'U1', at: 108, feedback: 'still no' });
  draft(report, '', 'Model v3', [python('fit_v3()')], twice);
  decide(report, twice, { action: 'accept', by: 'U1', at: 109 });
  return report;
}

const build = (report: Report, log: LogEntry[] = [], system?: string) =>
  buildTrainingData([{ threadKey: report.threadKey, report, log }], system === undefined ? {} : { system });

const userOf = (messages: Array<{ role: string; content?: unknown }>) =>
  messages.find((message) => message.role === 'user')?.content;

function callsOf(example: ReturnType<typeof build>['examples'][number]) {
  return example.messages.flatMap((message) =>
    'tool_calls' in message
      ? message.tool_calls.map((call) => ({ name: call.function.name, args: JSON.parse(call.function.arguments) }))
      : [],
  );
}

describe('buildTrainingData', () => {
  it('makes one example per accepted section, at its accepted version', () => {
    const { examples } = build(reviewedReport());
    expect(examples.map((example) => userOf(example.messages))).toEqual([
      'Give me an overview of customers',
      'What drives churn?',
      'Revenue by plan',
      'Tenure model',
    ]);
    const drafts = examples.map(
      (example) => callsOf(example).find((call) => call.name === 'draft_section')?.args.title,
    );
    expect(drafts).toEqual(['Customer overview', 'Churn drivers v2', 'Revenue', 'Model v3']);
  });

  it('never turns discarded, draft, awaiting or superseded work into a positive example', () => {
    const text = JSON.stringify(build(reviewedReport()).examples);
    for (const marker of [
      'DISCARDED',
      'STILL_DRAFT',
      'DRAFT_CODE',
      'AWAITING',
      'REJECTED_V1_TABLE',
      'fit_v1',
      'fit_v2',
    ]) {
      expect(text).not.toContain(marker);
    }
    expect(text).toContain('fit_v3()');
  });

  it('replays cells as the matching tool calls and ends on an assistant message', () => {
    const [overview] = build(reviewedReport()).examples;
    if (!overview) throw new Error('no example');
    expect(callsOf(overview)).toEqual([
      { name: 'load_dataframe', args: { sql: 'SELECT * FROM customers', name: 'customers', database: 'telco' } },
      { name: 'run_python', args: { code: 'customers.describe()' } },
      { name: 'draft_section', args: { title: 'Customer overview', markdown: 'Narrative of Customer overview.' } },
    ]);
    expect(overview.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      'customers: 7043 rows loaded from telco.',
      'count 7043',
      'Section s1 is posted for review.',
    ]);
    expect(overview.messages[0]).toEqual({ role: 'system', content: DEFAULT_TRAINING_SYSTEM_PROMPT });
    expect(overview.messages.at(-1)?.role).toBe('assistant');
    expect(overview.tools.map((tool) => tool.function.name)).toEqual(['load_dataframe', 'run_python', 'draft_section']);
    expect(overview.parallel_tool_calls).toBe(false);
  });

  it('teaches the code a person wrote or corrected', () => {
    const revenue = build(reviewedReport()).examples[2];
    if (!revenue) throw new Error('no example');
    expect(callsOf(revenue)[0]).toEqual({
      name: 'run_sql',
      args: { sql: 'SELECT plan, SUM(revenue) FROM billing GROUP BY plan', database: 'telco' },
    });
    expect(revenue.tools.map((tool) => tool.function.name)).toEqual(['run_sql', 'draft_section']);
  });

  it('pairs each version sent back for revision with the accepted one, on the request alone', () => {
    const { preferences } = build(reviewedReport(), [], 'Be tally.');
    expect(preferences).toHaveLength(3);
    const [churn, modelV1, modelV2] = preferences;
    expect(churn?.input.messages).toEqual([
      { role: 'system', content: 'Be tally.' },
      { role: 'user', content: 'What drives churn?' },
    ]);
    expect(churn?.preferred_output[0].content).toContain('## Churn drivers v2');
    expect(churn?.preferred_output[0].content).toContain('```sql\nSELECT churn, tenure FROM accounts\n```');
    expect(churn?.non_preferred_output[0].content).toContain('REJECTED_V1_TABLE');
    expect(JSON.stringify(preferences)).not.toContain('REVIEWER_FEEDBACK');
    expect(modelV1?.non_preferred_output[0].content).toContain('fit_v1()');
    expect(modelV2?.non_preferred_output[0].content).toContain('fit_v2()');
    expect(modelV1?.preferred_output[0].content).toContain('fit_v3()');
  });

  it("takes a section's request from the log when the section has none", () => {
    const report = emptyReport('discord:G:1', 0);
    const id = draft(report, '  ', 'Plans', [sql('SELECT plan FROM plans')]);
    decide(report, id, { action: 'accept', by: 'U1', at: 200 });
    const log: LogEntry[] = [
      { kind: 'request', text: 'too late', at: 150 },
      { kind: 'request', text: 'Which plans exist?', at: 90 },
      { kind: 'request', text: 'earlier', at: 10 },
    ];
    expect(userOf(build(report, log).examples[0]?.messages ?? [])).toBe('Which plans exist?');
    expect(build(report).examples).toEqual([]);
  });

  it('writes lines that pass the independent format check', () => {
    const { examples, preferences } = build(reviewedReport());
    for (const example of examples) expect(validateChatExampleLine(JSON.stringify(example))).toEqual([]);
    for (const pair of preferences) expect(validatePreferenceLine(JSON.stringify(pair))).toEqual([]);
  });
});

describe('the fine-tuning format check', () => {
  const call = (id: string, args: string) => ({
    role: 'assistant',
    tool_calls: [{ id, type: 'function', function: { name: 'run_sql', arguments: args } }],
  });
  const tools = [{ type: 'function', function: { name: 'run_sql', parameters: { type: 'object', properties: {} } } }];
  const start = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'hi' },
  ];
  const line = (messages: unknown[], extra: object = {}) => JSON.stringify({ messages, tools, ...extra });
  const good = [
    ...start,
    call('c1', '{"sql":"SELECT 1"}'),
    { role: 'tool', tool_call_id: 'c1', content: '1' },
    { role: 'assistant', content: 'done' },
  ];

  it('accepts a well-formed line', () => {
    expect(validateChatExampleLine(line(good))).toEqual([]);
  });

  it.each([
    ['an unanswered tool call', line([...start, call('c1', '{}'), { role: 'assistant', content: 'done' }]), 'c1'],
    ['arguments that are not JSON', line([...start, call('c1', '{sql:'), ...good.slice(3)]), 'not valid JSON'],
    [
      'a tool message answering nothing',
      line([...start, { role: 'tool', tool_call_id: 'x', content: '' }, good[4]]),
      "'x'",
    ],
    ['no assistant message', line(start), 'no assistant message'],
    ['an unknown role', line([...good, { role: 'robot', content: 'beep' }]), 'messages.5'],
    [
      'an empty assistant message',
      line([...start, { role: 'assistant', content: '' }]),
      'neither content nor tool_calls',
    ],
    ['a call to an undefined tool', line(good, { tools: [] }), 'not among the tools'],
    ['an unknown top-level key', line(good, { metadata: {} }), 'metadata'],
    ['a tool without type function', line(good, { tools: [{ function: { name: 'run_sql' } }] }), 'tools.0.type'],
    ['text that is not JSON', '{"messages": [', 'not JSON'],
  ])('rejects %s', (_, text, expected) => {
    const problems = validateChatExampleLine(text);
    expect(problems.join('\n')).toContain(expected);
  });

  const pair = (preferred: unknown, rejected: unknown, input: unknown = { messages: start }) =>
    JSON.stringify({ input, preferred_output: preferred, non_preferred_output: rejected });
  const answer = (content: string) => [{ role: 'assistant', content }];

  it('checks preference lines', () => {
    const problems = (text: string) => validatePreferenceLine(text).join('\n');
    expect(validatePreferenceLine(pair(answer('good'), answer('bad')))).toEqual([]);
    expect(problems(pair(answer('same'), answer('same')))).toContain('identical');
    expect(problems(pair([...answer('a'), ...answer('b')], answer('c')))).toContain('preferred_output');
    expect(problems(pair(answer('good'), [{ role: 'user', content: 'bad' }]))).toContain('non_preferred_output.0.role');
    expect(problems(pair(answer('good'), answer('bad'), { messages: [] }))).toContain('input.messages');
    expect(problems(pair(answer('good'), answer('bad'), { messages: [...start, ...answer('x')] }))).toContain(
      'does not end on a user message',
    );
    expect(problems(JSON.stringify({ preferred_output: answer('a') }))).toContain('input');
  });
});
