import { describe, expect, it } from 'vitest';
import type { ScriptReply, ScriptStep, WireMessage } from '../../src/demo/script-steps.js';
import { contextOf } from '../../src/demo/scripted-wire.js';
import { answerFromLabels, dabenchOracle, labelCell } from '../../src/eval/dabench-oracle.js';
import { parseAnswers, scoreDabench } from '../../src/eval/dabench-score.js';
import { type DabenchItem, dabenchMessage } from '../../src/eval/dabench-suite.js';

const ITEM: DabenchItem = {
  id: 6,
  question: 'What is the mean fare of each age group?',
  concepts: ['Summary Statistics'],
  constraints: 'Round to 2 decimals.',
  format: '@mean_fare_child[mean] @mean_fare_adult[mean]',
  file_name: 'test_ave.csv',
  level: 'medium',
  labels: [
    ['mean_fare_child', '31.09'],
    ['mean_fare_adult', '35.17'],
  ],
};

const TRIAGE = [{ type: 'function', function: { name: 'triage' } }];
const TOOLS = [
  { type: 'function', function: { name: 'run_python' } },
  { type: 'function', function: { name: 'run_sql' } },
];

function cellCall(id: string, code: string): WireMessage {
  return {
    role: 'assistant',
    tool_calls: [{ id, type: 'function', function: { name: 'run_python', arguments: JSON.stringify({ code }) } }],
  };
}

/** The reply the oracle's first step gives to this conversation. */
async function reply(messages: WireMessage[], tools = TOOLS, toolChoice?: unknown): Promise<ScriptReply> {
  const [step] = dabenchOracle([ITEM]) as [ScriptStep];
  if (typeof step !== 'function') throw new Error('the oracle steps are functions of the conversation');
  const resolved = await step(contextOf({ messages, tools, ...(toolChoice ? { tool_choice: toolChoice } : {}) }, 0));
  if (typeof resolved === 'function' || resolved.kind !== 'reply') throw new Error('expected a reply');
  return resolved;
}

const asked: WireMessage[] = [
  { role: 'system', content: 'You are tally.' },
  { role: 'user', content: dabenchMessage(ITEM) },
];

describe('the DABench oracle', () => {
  it('first runs a cell, a clear one-step request needing no triage, that prints the labelled values it will state', async () => {
    const first = await reply(asked, [...TOOLS, ...TRIAGE]);
    expect(first.toolCalls?.map((call) => call.name)).toEqual(['run_python']);
    expect(JSON.parse(first.toolCalls?.[0]?.arguments ?? '')).toEqual({
      code: ['print("mean_fare_child = 31.09")', 'print("mean_fare_adult = 35.17")'].join('\n'),
    });
  });

  it('answers in the benchmark format once that cell has run, and not before', async () => {
    const code = labelCell(ITEM);
    const ran = [...asked, cellCall('c1', code), { role: 'tool', tool_call_id: 'c1', content: 'stdout:\n…' }];
    expect((await reply(ran)).text).toBe('@mean_fare_child[31.09] @mean_fare_adult[35.17]');
    // Another cell's result, or this cell asked for but not answered, is not this cell having run.
    const other = [...asked, cellCall('c1', 'print(1)'), { role: 'tool', tool_call_id: 'c1', content: 'stdout:\n1' }];
    expect((await reply(other)).toolCalls?.[0]?.name).toBe('run_python');
    expect((await reply([...asked, cellCall('c2', code)])).toolCalls?.[0]?.name).toBe('run_python');
    // After a review note the answer is given again.
    const noted = [
      ...ran,
      { role: 'assistant', content: '@x[1]' },
      { role: 'user', content: 'Review note from tally' },
    ];
    expect(answerFromLabels(ITEM, contextOf({ messages: noted, tools: TOOLS }, 0))).toMatchObject({
      text: '@mean_fare_child[31.09] @mean_fare_adult[35.17]',
    });
  });

  it('prints any label as written: quotes, backslashes and newlines are escaped for Python', () => {
    const code = labelCell({ ...ITEM, labels: [['note', 'say "hi" \\ now\nthen']] });
    expect(code).toBe('print("note = say \\"hi\\" \\\\ now\\nthen")');
  });

  it('takes three requests per case answered from its labels, and leaves room for one review note', () => {
    expect(dabenchOracle([ITEM, { ...ITEM, id: 7, question: 'Another?' }])).toHaveLength(8);
  });
});

describe('DABench scoring of a marked answer', () => {
  const marked = '@mean_fare_child[31.09⚠] @mean_fare_adult[35.17]\n\n⚠ not found in any result: 31.09';

  it('drops the marks tally puts after ungrounded figures before reading the values', () => {
    expect(parseAnswers(marked)).toEqual(
      new Map([
        ['mean_fare_child', '31.09'],
        ['mean_fare_adult', '35.17'],
      ]),
    );
    expect(scoreDabench(marked, ITEM.labels).map((part) => [part.name, part.correct, part.got])).toEqual([
      ['mean_fare_child', true, '31.09'],
      ['mean_fare_adult', true, '35.17'],
    ]);
  });

  it('still scores a wrong value wrong, and says so without the mark', () => {
    const [child] = scoreDabench('@mean_fare_child[32.09⚠]', ITEM.labels);
    expect(child).toMatchObject({ correct: false, got: '32.09', why: '@mean_fare_child[32.09] is not 31.09' });
  });
});
