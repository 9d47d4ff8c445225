/**
 * The span decorators against a recording tracing port: a kernel acquired twice is the same wrapper (the
 * sessions tell a new kernel by identity, and would replay its journal again otherwise), a cell's span has
 * sizes and its exception's class but not its code or output, a statement's span has the SQL as written and
 * a row count, and the tool loop puts each call in a span of its own around what it runs.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runToolLoop } from '../../src/agent/run-tool-loop.js';
import { defineTool, type ToolContext } from '../../src/agent/tool.js';
import { tracedDatabase } from '../../src/db/traced-database.js';
import { tracedSandbox } from '../../src/ops/traced-sandbox.js';
import type { Database } from '../../src/ports/database.js';
import type { Completion, LlmClient } from '../../src/ports/llm.js';
import type { Execution, Kernel, Sandbox } from '../../src/ports/sandbox.js';
import type { SpanAttributes, Tracing } from '../../src/ports/tracing.js';

interface Recorded {
  name: string;
  parent: string | undefined;
  attributes: SpanAttributes;
  failed?: string;
}

function recordingTracing(): Tracing & { spans: Recorded[] } {
  const spans: Recorded[] = [];
  const stack: string[] = [];
  return {
    spans,
    async span(name, attributes, task) {
      const recorded: Recorded = { name, parent: stack.at(-1), attributes: { ...attributes } };
      spans.push(recorded);
      stack.push(name);
      try {
        return await task({
          set: (more) => Object.assign(recorded.attributes, more),
          fail: (kind) => {
            recorded.failed = kind;
          },
        });
      } finally {
        stack.pop();
      }
    },
    shutdown: async () => {},
  };
}

const execution = (overrides: Partial<Execution> = {}): Execution => ({
  stdout: 'secret output',
  stderr: '',
  stdoutBytes: 13,
  stderrBytes: 0,
  figures: [],
  durationMs: 7,
  timedOut: false,
  ...overrides,
});

const fakeKernel = (): Kernel => ({
  sessionId: 'console:t:1',
  run: async (code) =>
    code.includes('1/0')
      ? execution({ error: { name: 'ZeroDivisionError', value: 'division by zero', traceback: '' } })
      : execution({ result: { type: 'DataFrame', text: 'secret table' } }),
  writeFile: async () => {},
  removeInput: async () => {},
  readFile: async () => Buffer.alloc(0),
  interrupt: async () => {},
  restart: async () => ({ reason: 'requested', oomLikely: false, replayedCells: 0, failedReplays: 0 }),
  hold: () => () => {},
  dispose: async () => {},
});

describe('the span decorators', () => {
  it('give a kernel one wrapper, and each cell a span with sizes and the exception class only', async () => {
    const tracing = recordingTracing();
    const kernel = fakeKernel();
    const sandbox: Sandbox = { acquire: async () => kernel, release: async () => true, close: async () => {} };
    const traced = tracedSandbox(sandbox, tracing);
    const first = await traced.acquire('console:t:1');
    expect(await traced.acquire('console:t:1')).toBe(first);
    await first.run('df = load()\ndf');
    await first.run('1/0');
    const cells = tracing.spans.filter((span) => span.name === 'tally.cell');
    expect(cells[0]?.attributes).toMatchObject({
      'tally.cell.code_bytes': 14,
      'tally.cell.code_lines': 2,
      'tally.cell.stdout_bytes': 13,
      'tally.cell.result_type': 'DataFrame',
    });
    expect(cells[1]?.failed).toBe('ZeroDivisionError');
    expect(JSON.stringify(tracing.spans)).not.toMatch(/secret|load\(\)|division by zero/);
  });

  it('give a statement a span with the SQL as written and the rows counted, not their values', async () => {
    const tracing = recordingTracing();
    const database = {
      name: 'telco',
      dialect: 'postgres',
      query: async () => ({ columns: [], rows: [['secret-row']], truncated: false, elapsedMs: 3 }),
    } as unknown as Database;
    await tracedDatabase(database, tracing).query('  with t as (select 1) select * from t');
    expect(tracing.spans).toEqual([
      {
        name: 'WITH telco',
        parent: undefined,
        attributes: {
          'db.system.name': 'postgresql',
          'db.namespace': 'telco',
          'db.query.text': '  with t as (select 1) select * from t',
          'db.operation.name': 'WITH',
          'tally.sql.kind': 'query',
          'db.response.returned_rows': 1,
          'tally.sql.truncated': false,
          'tally.sql.elapsed_ms': 3,
        },
      },
    ]);
  });

  it('put each tool call of the loop in a span, around what the tool runs', async () => {
    const tracing = recordingTracing();
    const replies: Completion[] = [
      {
        message: { role: 'assistant', content: null },
        toolCalls: [{ id: 'call_1', name: 'probe', arguments: '{}' }],
        usage: { promptTokens: 1, completionTokens: 1 },
        finishReason: 'tool_calls',
      },
      {
        message: { role: 'assistant', content: 'done' },
        toolCalls: [],
        usage: { promptTokens: 1, completionTokens: 1 },
        finishReason: 'stop',
      },
    ];
    const llm: LlmClient = { model: 'm', complete: async () => replies.shift() as Completion };
    const probe = defineTool({
      name: 'probe',
      description: 'probe',
      schema: z.object({}),
      execute: async () => {
        await tracing.span('inner', {}, async () => {});
        return { content: 'bad', failed: true };
      },
    });
    await runToolLoop({
      llm,
      system: 's',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [probe],
      context: { signal: new AbortController().signal } as ToolContext,
      params: {},
      stopWhen: [],
      tracing,
    });
    expect(tracing.spans.map((span) => [span.name, span.parent])).toEqual([
      ['execute_tool probe', undefined],
      ['inner', 'execute_tool probe'],
    ]);
    expect(tracing.spans[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'probe',
      'gen_ai.tool.call.id': 'call_1',
      'tally.tool.result_bytes': 3,
    });
    expect(tracing.spans[0]?.failed).toBe('tool_failed');
  });
});
