import { describe, expect, it } from 'vitest';
import type { LlmSettings } from '../../src/base/config.js';
import { LlmCancelledError, LlmNotConfiguredError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { createLlmClient, modelForStage } from '../../src/llm/create-llm-client.js';
import { retryAfter } from '../../src/llm/retry-delay.js';

const settings: LlmSettings = {
  baseUrl: undefined,
  apiKey: undefined,
  model: 'gpt-4o-mini',
  stageModels: { plan: 'big-model' },
  timeoutMs: 1_000,
  maxRetries: 0,
};

describe('LLM settings', () => {
  it('picks the stage model when one is set, else LLM_MODEL', () => {
    expect(modelForStage(settings, 'plan')).toBe('big-model');
    expect(modelForStage(settings, 'PLAN')).toBe('big-model');
    expect(modelForStage(settings, 'act')).toBe('gpt-4o-mini');
  });

  it('refuses to build a client without LLM_BASE_URL', () => {
    expect(() => createLlmClient(settings, createLogger({ level: 'silent' }))).toThrow(LlmNotConfiguredError);
    expect(() => createLlmClient(settings, createLogger({ level: 'silent' }))).toThrow(/LLM_BASE_URL/);
  });

  it('makes cancellation look like an AbortError', () => {
    const error = new LlmCancelledError();
    expect(error.name).toBe('AbortError');
    expect(error.code).toBe('LLM_CANCELLED');
  });
});

describe('retryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads retry-after-ms first, then Retry-After seconds or date', () => {
    expect(retryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryAfter(new Headers({ 'retry-after': '2' }), now)).toBe(2_000);
    expect(retryAfter(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(retryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3_000);
  });

  it('ignores what it cannot read', () => {
    expect(retryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfter(new Headers({ 'retry-after-ms': '-5' }), now)).toBeUndefined();
    expect(retryAfter(new Headers(), now)).toBeUndefined();
    expect(retryAfter(undefined, now)).toBeUndefined();
  });
});
