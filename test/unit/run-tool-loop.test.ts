/** The tool loop against a scripted LlmClient at the port, and its stop conditions. */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runToolLoop } from '../../src/agent/run-tool-loop.js';
import {
  afterFailures,
  afterMs,
  afterSteps,
  afterTokens,
  afterTool,
  firstStop,
  whenAsked,
} from '../../src/agent/stop-conditions.js';
import { defineTool, type ToolContext } from '../../src/agent/tool.js';
import type { ChatMessage, Completion, CompletionRequest, LlmClient, ToolCall } from '../../src/ports/llm.js';

/** Answers from a list of tool-call lists (or a final text), recording every request. */
function scriptedLlm(steps: Array<ToolCall[] | string>): LlmClient & { requests: CompletionRequest[] } {
  const requests: CompletionRequest[] = [];
  return {
    model: 'script',
    requests,
    async complete(request): Promise<Completion> {
      const { signal: _signal, ...copy } = request;
      requests.push(structuredClone(copy));
      const step = steps.shift() ?? 'out of script';
      const toolCalls = typeof step === 'string' ? [] : step;
      const content = typeof step === 'string' ? step : null;
      return {
        message: { role: 'assistant', content, ...(toolCalls.length ? { toolCalls } : {}) },
        toolCalls,
        usage: { promptTokens: 10, completionTokens: 5 },
        finishReason: toolCalls.length ? 'tool_calls' : 'stop',
      };
    },
  };
}

const call = (name: string, args: unknown, id = name): ToolCall => ({ id, name, arguments: JSON.stringify(args) });
const echo = defineTool({
  name: 'echo',
  description: 'Echoes text',
  schema: z.object({ text: z.string() }),
  async execute({ text }) {
    return text === 'fail' ? { content: 'error: it failed', failed: true } : { content: `echo: ${text}` };
  },
});
const python = { ...echo, name: 'run_python' };
const context = { signal: new AbortController().signal } as ToolContext;
const base = { system: 'system', context, params: {}, stopWhen: [afterSteps(10)] };

describe('runToolLoop', () => {
  it('lets a reviewer send the answer back once with a note, then posts what it returns', async () => {
    const llm = scriptedLlm(['churn is 47.2%', 'churn is 44.9%']);
    const messages: ChatMessage[] = [{ role: 'user', content: 'go' }];
    const seen: string[] = [];
    const result = await runToolLoop({
      ...base,
      llm,
      messages,
      tools: [echo],
      reviewAnswer: async (text) => {
        seen.push(text);
        return seen.length === 1 ? { redo: 'check 47.2%' } : { text: `${text} (checked)` };
      },
    });
    expect(result).toMatchObject({ reason: 'answered', text: 'churn is 44.9% (checked)' });
    expect(seen).toEqual(['churn is 47.2%', 'churn is 44.9%']);
    expect(llm.requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: 'check 47.2%' });
    expect(result.state.steps).toBe(2);
  });

  it('feeds tool results back until the model answers', async () => {
    const llm = scriptedLlm([[call('echo', { text: 'hi' })], 'done']);
    const messages: ChatMessage[] = [{ role: 'user', content: 'go' }];
    const result = await runToolLoop({ ...base, llm, messages, tools: [echo] });
    expect(result).toMatchObject({ reason: 'answered', text: 'done' });
    expect(messages.at(-2)).toEqual({ role: 'tool', toolCallId: 'echo', content: 'echo: hi' });
    expect(llm.requests[1]?.messages[0]).toEqual({ role: 'system', content: 'system' });
    expect(llm.requests[0]?.tools?.[0]?.parameters).toMatchObject({ type: 'object', required: ['text'] });
  });

  it('hands unknown tools and invalid arguments back to the model', async () => {
    const llm = scriptedLlm([
      [call('nope', {}), { id: 'bad', name: 'echo', arguments: '{"text":' }, call('echo', { text: 1 }, 'typed')],
      'ok',
    ]);
    const messages: ChatMessage[] = [];
    await runToolLoop({ ...base, llm, messages, tools: [echo] });
    const results = messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results[0]).toBe("There is no tool named 'nope'. Tools: echo.");
    expect(results[1]).toContain("The arguments of tool 'echo' are not valid JSON");
    expect(results[2]).toContain('text');
  });

  it('stops after the repair limit with the failures it saw, and a success resets the count', async () => {
    const failing = [call('run_python', { text: 'fail' })];
    const llm = scriptedLlm([failing, failing, [call('run_python', { text: 'ok' })], failing, failing, failing]);
    const result = await runToolLoop({
      ...base,
      llm,
      messages: [],
      tools: [python],
      stopWhen: [afterFailures(3), afterSteps(10)],
    });
    expect(result.reason).toBe('repair_limit');
    expect(result.state.steps).toBe(6);
    expect('failures' in result && result.failures).toEqual([
      'error: it failed',
      'error: it failed',
      'error: it failed',
    ]);
  });

  it('stops when a finishing tool is called, and at the step limit', async () => {
    const finished = await runToolLoop({
      ...base,
      llm: scriptedLlm([[call('echo', { text: 'x' })], 'never']),
      messages: [],
      tools: [echo],
      stopWhen: [afterTool('echo')],
    });
    expect(finished.reason).toBe('finished');
    const loop = Array.from({ length: 5 }, () => [call('echo', { text: 'again' })]);
    const limited = await runToolLoop({
      ...base,
      llm: scriptedLlm(loop),
      messages: [],
      tools: [echo],
      stopWhen: [afterSteps(3)],
    });
    expect(limited).toMatchObject({ reason: 'step_limit', state: { steps: 3 } });
  });
});

describe('stop conditions', () => {
  const state = {
    steps: 2,
    tokens: 500,
    startedAt: 1000,
    consecutiveFailures: 1,
    asked: false,
    lastTools: ['run_sql'],
  };
  it('answer with the first reason that holds, in the order given', () => {
    expect(firstStop([whenAsked, afterSteps(5), afterTokens(1000), afterFailures(3)], state)).toBeUndefined();
    expect(firstStop([afterTokens(400), afterSteps(2)], state)).toBe('token_limit');
    expect(firstStop([afterSteps(2), afterTokens(400)], state)).toBe('step_limit');
    expect(firstStop([afterMs(100, () => 1200)], state)).toBe('time_limit');
    expect(firstStop([afterTool('run_sql')], state)).toBe('finished');
    expect(firstStop([whenAsked], { ...state, asked: true })).toBe('asked');
  });
});
