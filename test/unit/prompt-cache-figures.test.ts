/**
 * What `tally eval` says a prompt cache could reuse: the repeated prefix of each request (from the
 * text sent), the stand-in provider's cache (128-token blocks from 1,024 tokens), the sums and the
 * cost at a cached price.
 */
import { describe, expect, it } from 'vitest';
import { estimateTokens, ScriptedPromptCache } from '../../src/demo/scripted-prompt-cache.js';
import { CaseAccounting } from '../../src/eval/case-accounting.js';
import { costOf } from '../../src/eval/model-cost.js';
import { repeatedShare, requestText } from '../../src/eval/prompt-prefix.js';
import { describeTokens, repeatedPrefixShare, sumTokens } from '../../src/eval/token-figures.js';
import type { ChatMessage, CompletionRequest, LlmClient } from '../../src/ports/llm.js';

const text = (characters: number, seed = 'a') => seed.repeat(characters);

describe('the stand-in provider prompt cache', () => {
  it('serves the leading 128-token blocks an earlier prompt sent, from prompts of 1,024 tokens', () => {
    const cache = new ScriptedPromptCache();
    const first = text(8_000);
    expect(cache.lookup(first, estimateTokens(first))).toBe(0);
    // The same 8,000 characters and more: 15 whole blocks of 512 characters were sent before.
    const longer = `${first}${text(2_000, 'b')}`;
    expect(cache.lookup(longer, estimateTokens(longer))).toBe(15 * 128);
    // A prompt that starts otherwise shares no prefix, however much it has in common later.
    const other = `x${first}`;
    expect(cache.lookup(other, estimateTokens(other))).toBe(0);
  });

  it('reports nothing for prompts under 1,024 tokens', () => {
    const cache = new ScriptedPromptCache();
    const short = text(3_000);
    cache.lookup(short, estimateTokens(short));
    expect(cache.lookup(short, estimateTokens(short))).toBe(0);
  });
});

describe('the repeated prefix of a request', () => {
  const request = (messages: ChatMessage[], tools: CompletionRequest['tools'] = []): CompletionRequest => ({
    messages,
    tools,
  });
  const system: ChatMessage = { role: 'system', content: text(1_000) };

  it('is the longest prefix any earlier request sent, over the request', () => {
    const first = requestText(request([system, { role: 'user', content: 'q1' }]), 'm');
    const second = requestText(
      request([system, { role: 'user', content: 'q1' }, { role: 'assistant', content: 'a1' }]),
      'm',
    );
    expect(repeatedShare(second, [first])).toBeGreaterThan(0.9);
    expect(repeatedShare(second, [first])).toBeLessThan(1);
    expect(repeatedShare(first, [])).toBe(0);
  });

  it('is broken by a different tool list or model, which come first', () => {
    const messages = [system, { role: 'user' as const, content: 'q1' }];
    const first = requestText(request(messages), 'm');
    const tools = [{ name: 't', description: 'd', parameters: {} }];
    expect(repeatedShare(requestText(request(messages, tools), 'm'), [first])).toBeLessThan(0.01);
    expect(repeatedShare(requestText(request(messages), 'other'), [first])).toBe(0);
  });
});

describe('a case counted by the accounting', () => {
  it('counts the prompt after the first request and the part of it in a repeated prefix, with cached tokens', async () => {
    const replies = [
      { promptTokens: 1_000, completionTokens: 10, cachedTokens: 0 },
      { promptTokens: 1_100, completionTokens: 10, cachedTokens: 1_024 },
    ];
    const llm: LlmClient = {
      model: 'm',
      complete: async () => ({
        message: { role: 'assistant', content: 'ok' },
        toolCalls: [],
        usage: replies.shift() ?? { promptTokens: 0, completionTokens: 0 },
        finishReason: 'stop',
      }),
    };
    const accounting = new CaseAccounting();
    const measured = accounting.measure(llm);
    const system: ChatMessage = { role: 'system', content: text(4_000) };
    const { usage } = await accounting.run(100_000, async () => {
      await measured.complete({ messages: [system, { role: 'user', content: 'first' }] });
      await measured.complete({
        messages: [system, { role: 'user', content: 'first' }, { role: 'user', content: 'b' }],
      });
    });
    expect(usage.tokens).toMatchObject({ prompt: 2_100, completion: 20, cached: 1_024, afterFirst: 1_100 });
    // Nearly all of the second request is the first one again.
    expect(repeatedPrefixShare(usage.tokens)).toBeGreaterThan(0.95);
  });
});

describe('token figures', () => {
  it('sums cases, keeping the cache figures only where some case has them', () => {
    expect(
      sumTokens([
        { prompt: 1, completion: 2 },
        { prompt: 3, completion: 4 },
      ]),
    ).toEqual({ prompt: 4, completion: 6 });
    expect(
      sumTokens([
        { prompt: 100, completion: 1, afterFirst: 80, repeated: 60, cached: 40 },
        { prompt: 100, completion: 1, afterFirst: 20, repeated: 20 },
      ]),
    ).toEqual({ prompt: 200, completion: 2, afterFirst: 100, repeated: 80, cached: 40 });
  });

  it('says the share and the cached tokens when measured', () => {
    expect(describeTokens({ prompt: 12_345, completion: 678 })).toBe('12,345 in / 678 out');
    expect(
      describeTokens({ prompt: 12_345, completion: 678, afterFirst: 10_000, repeated: 9_100, cached: 8_192 }),
    ).toBe('12,345 in (91% a repeated prefix, 8,192 cached) / 678 out');
  });

  it('costs cached prompt tokens at the cached price, or at the prompt price when there is none', () => {
    const tokens = { prompt: 1_000_000, completion: 100_000, cached: 800_000 };
    expect(costOf(tokens, { promptPerMillion: 1, completionPerMillion: 4, cachedPromptPerMillion: 0.1 })).toBeCloseTo(
      0.2 + 0.08 + 0.4,
    );
    expect(costOf(tokens, { promptPerMillion: 1, completionPerMillion: 4 })).toBeCloseTo(1.4);
  });
});
