/**
 * Triage as the model's first call in the act loop: a question pauses the turn, a decline ends it with no answer of
 * the model's, a multi-step request gets its plan as the call's result, and a clear request goes on.
 */
import { describe, expect, it } from 'vitest';
import { runToolLoop } from '../../src/agent/run-tool-loop.js';
import { afterSteps, whenAsked } from '../../src/agent/stop-conditions.js';
import type { ToolContext } from '../../src/agent/tool.js';
import { GO_ON, triageTool } from '../../src/agent/triage.js';
import type { ChatMessage, Completion, LlmClient, ToolCall } from '../../src/ports/llm.js';

/** Replies from a list: a list of calls, or a final text. */
function scriptedLlm(steps: Array<ToolCall[] | string>): LlmClient {
  return {
    model: 'script',
    async complete(): Promise<Completion> {
      const step = steps.shift() ?? 'out of script';
      const toolCalls = typeof step === 'string' ? [] : step;
      return {
        message: { role: 'assistant', content: typeof step === 'string' ? step : null, toolCalls },
        toolCalls,
        usage: { promptTokens: 10, completionTokens: 5 },
        finishReason: toolCalls.length ? 'tool_calls' : 'stop',
      };
    },
  };
}

const triage = (args: unknown): ToolCall => ({ id: 't1', name: 'triage', arguments: JSON.stringify(args) });

async function loop(steps: Array<ToolCall[] | string>, guidance?: () => Promise<string[]>) {
  const messages: ChatMessage[] = [{ role: 'user', content: 'the request' }];
  const context = { signal: new AbortController().signal, ...(guidance ? { guidance } : {}) } as ToolContext;
  const result = await runToolLoop({
    llm: scriptedLlm(steps),
    system: 'system',
    messages,
    tools: [triageTool],
    context,
    params: {},
    stopWhen: [whenAsked, afterSteps(10)],
  });
  return { result, messages };
}

describe('triage in the act loop', () => {
  it('pauses the turn on an ambiguous request, with its question and choices', async () => {
    const { result } = await loop([
      [triage({ verdict: 'ambiguous', question: 'Which year?', choices: ['2023', '2024'] })],
    ]);
    expect(result).toMatchObject({
      reason: 'asked',
      callId: 't1',
      pause: { kind: 'question', text: 'Which year?', choices: ['2023', '2024'] },
    });
  });

  it('ends the turn on a request the data cannot answer, the call answered in the history', async () => {
    const { result, messages } = await loop([[triage({ verdict: 'out_of_scope', reason: 'no call records' })]]);
    expect(result).toMatchObject({ reason: 'ended', end: { kind: 'out_of_scope', reason: 'no call records' } });
    expect(messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 't1' });
  });

  it('gives a multi-step request what it follows as messages after the call result, and goes on', async () => {
    const { result, messages } = await loop(
      [[triage({ verdict: 'answerable', multi_step: true })], 'done'],
      async () => ['Playbook to follow: x (x.md)', 'Plan to follow:\n1. Count.'],
    );
    expect(result).toMatchObject({ reason: 'answered', text: 'done' });
    expect(messages.slice(1).map((message) => message.role)).toEqual([
      'assistant',
      'tool',
      'user',
      'user',
      'assistant',
    ]);
    expect(messages.slice(3, 5).map((message) => message.content)).toEqual([
      'Playbook to follow: x (x.md)',
      'Plan to follow:\n1. Count.',
    ]);
  });

  it('carries multi_step with a question, so what the request follows comes after the answer', async () => {
    const { result } = await loop([[triage({ verdict: 'ambiguous', question: 'Which?', multi_step: true })]]);
    expect(result).toMatchObject({ reason: 'asked', pause: { kind: 'question', text: 'Which?', multiStep: true } });
  });

  it('lets a clear request, or an ambiguous one with no question, go on without a plan', async () => {
    for (const args of [{ verdict: 'answerable', multi_step: true }, { verdict: 'ambiguous' }]) {
      const { result, messages } = await loop([[triage(args)], 'done']);
      expect(result).toMatchObject({ reason: 'answered' });
      expect(messages.find((message) => message.role === 'tool')?.content).toBe(GO_ON);
    }
  });
});
