/**
 * How a turn is laid out for the provider's prompt cache: the request's own message (what was found
 * for it, then the request), the plan, tools that are the same on every request,
 * and trimming that cuts deep enough to keep the prefix for a while.
 */
import { describe, expect, it } from 'vitest';
import { fitToBudget } from '../../src/agent/context-budget.js';
import { toolSpecs } from '../../src/agent/run-tool-loop.js';
import { planMessage, requestOfTurnMessage, turnMessage } from '../../src/agent/turn-message.js';
import { turnTools } from '../../src/agent/turn-tools.js';
import type { ChatMessage, LlmClient } from '../../src/ports/llm.js';

describe("a request's own message", () => {
  it('carries what was found for the request, then the request, which can be read back', () => {
    const message = turnMessage('Churn by contract?', '- user_churn (7,043 rows): Churn varchar');
    expect(message).toMatch(/^For this request .*:\n- user_churn/);
    expect(message.endsWith('\n\nThe request:\nChurn by contract?')).toBe(true);
    expect(requestOfTurnMessage(message)).toBe('Churn by contract?');
  });

  it('is the request alone when nothing was found', () => {
    expect(turnMessage('hello', '')).toBe('hello');
    expect(requestOfTurnMessage('hello\n\nThe request:\nnot a heading')).toBe('hello\n\nThe request:\nnot a heading');
  });

  it('is followed by the plan, which says how to name its steps', () => {
    expect(planMessage('1. Count')).toBe('Plan to follow (give each tool call the plan_step it works on):\n1. Count');
  });
});

describe('the tools of a turn', () => {
  it('are the same with or without a plan, triage among them, each with an optional plan_step', () => {
    const specs = toolSpecs(turnTools({ queries: true }));
    expect(specs.map((spec) => spec.name)).toContain('triage');
    expect(specs.map((spec) => spec.name)).toContain('run_verified_query');
    for (const spec of specs.filter((candidate) => candidate.name !== 'triage')) {
      const parameters = spec.parameters as { properties: Record<string, unknown>; required?: string[] };
      expect(parameters.properties.plan_step).toEqual({ type: 'integer' });
      expect(parameters.required ?? []).not.toContain('plan_step');
    }
    expect(JSON.stringify(toolSpecs(turnTools({ queries: true })))).toBe(JSON.stringify(specs));
  });

  it('ask no database when there is only one, and take a call that names it anyway', () => {
    const hasDatabase = (tools: ReturnType<typeof turnTools>) =>
      toolSpecs(tools)
        .filter((spec) => 'database' in (spec.parameters as { properties: object }).properties)
        .map((spec) => spec.name);
    expect(hasDatabase(turnTools({ queries: true }))).toEqual([
      'describe_table',
      'run_sql',
      'load_dataframe',
      'run_verified_query',
    ]);
    const one = turnTools({ queries: true, oneDatabase: true });
    expect(hasDatabase(one)).toEqual([]);
    const runSql = one.find((tool) => tool.name === 'run_sql');
    expect(runSql?.schema.safeParse({ sql: 'SELECT 1', database: 'telco' })).toMatchObject({
      success: true,
      data: { sql: 'SELECT 1', max_rows: 20 },
    });
  });
});

describe('trimming a long thread', () => {
  const summariser: LlmClient = {
    model: 'm',
    complete: async () => ({
      message: { role: 'assistant', content: 'earlier work' },
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0 },
      finishReason: 'stop',
    }),
  };
  /** `turns` turns of a request and an answer of about `words` tokens each. */
  const thread = (turns: number, words: number): ChatMessage[] =>
    Array.from({ length: turns }, (_, index): ChatMessage[] => [
      { role: 'user', content: `request ${index}` },
      { role: 'assistant', content: 'word '.repeat(words) },
    ]).flat();

  it('keeps what fits in half the budget, so the next turns repeat the same prefix', async () => {
    const messages = thread(10, 1_000);
    const fit = (list: ChatMessage[]) =>
      fitToBudget({
        messages: list,
        budgetTokens: 8_000,
        llm: summariser,
        params: {},
        signal: AbortSignal.timeout(5_000),
      });
    expect(await fit(messages)).toBe(true);
    // The summary and three whole turns (about 3,000 tokens): not the eight that would just fit.
    expect(messages[0]?.content).toBe('(Summary of the earlier conversation: earlier work)');
    expect(messages.filter((message) => message.role === 'user')).toHaveLength(4);
    // The next two turns fit without another cut: the prefix the provider cached stays.
    const before = JSON.stringify(messages);
    messages.push(...thread(2, 1_000));
    expect(await fit(messages)).toBe(false);
    expect(JSON.stringify(messages).startsWith(before.slice(0, -1))).toBe(true);
  });

  it('keeps the last two turns even when they alone pass half the budget', async () => {
    const messages = thread(4, 3_000);
    await fitToBudget({
      messages,
      budgetTokens: 8_000,
      llm: summariser,
      params: {},
      signal: AbortSignal.timeout(5_000),
    });
    expect(messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
      '(Summary of the earlier conversation: earlier work)',
      'request 2',
      'request 3',
    ]);
  });
});
