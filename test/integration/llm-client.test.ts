/**
 * The OpenAI client against the scripted model server over real HTTP: the unmodified `openai` SDK
 * on one side, the OpenAI wire protocol on the other.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolSpec } from '../../src/agent/tool-schema.js';
import type { LlmSettings } from '../../src/base/config.js';
import {
  LlmAuthError,
  LlmCancelledError,
  LlmRateLimitedError,
  LlmRequestError,
  LlmResponseInvalidError,
  LlmTimeoutError,
  LlmToolsUnsupportedError,
  LlmUnavailableError,
} from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import {
  callTool,
  callTools,
  fail,
  hashedWordVector,
  malformedToolCall,
  rateLimit,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  type ScriptStep,
  say,
  serverError,
  slow,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import { OpenAiLlmClient, type OpenAiLlmClientOptions } from '../../src/llm/openai-llm-client.js';
import type { ChatMessage } from '../../src/ports/llm.js';

const API_KEY = 'sk-test-secret-4f9c1e';
const question: ChatMessage[] = [{ role: 'user', content: 'How many customers churned?' }];
const runSql = toolSpec('run_sql', 'Run one read-only SQL statement.', z.object({ sql: z.string() }));

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(
  script: ScriptStep[],
  options: Omit<ScriptedModelServerOptions, 'script'> = {},
): Promise<ScriptedModelServer> {
  server = await startScriptedModelServer({ script, ...options });
  return server;
}

function clientFor(running: ScriptedModelServer, options: Partial<OpenAiLlmClientOptions> = {}): OpenAiLlmClient {
  return new OpenAiLlmClient({
    baseUrl: running.url,
    apiKey: API_KEY,
    model: 'scripted-model',
    retryDelayMs: 5,
    maxRetries: 2,
    ...options,
  });
}

function captureLogs() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'trace', destination }) };
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 500) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('OpenAiLlmClient: completions', () => {
  it('returns plain text with usage and finish reason', async () => {
    const running = await start([say('About 26% of customers churned.')]);
    const completion = await clientFor(running).complete({ messages: question });
    expect(completion.message).toEqual({ role: 'assistant', content: 'About 26% of customers churned.' });
    expect(completion.toolCalls).toEqual([]);
    expect(completion.finishReason).toBe('stop');
    expect(completion.usage.promptTokens).toBeGreaterThan(0);
    expect(completion.usage.completionTokens).toBeGreaterThan(0);
  });

  it('parses one tool call with its raw arguments', async () => {
    const running = await start([callTool('run_sql', { sql: 'SELECT 1' }, { id: 'call_a' })]);
    const completion = await clientFor(running).complete({ messages: question, tools: [runSql] });
    expect(completion.toolCalls).toEqual([{ id: 'call_a', name: 'run_sql', arguments: '{"sql":"SELECT 1"}' }]);
    expect(completion.message.toolCalls).toEqual(completion.toolCalls);
    expect(completion.message.content).toBeNull();
    expect(completion.finishReason).toBe('tool_calls');
  });

  it('parses parallel tool calls in order', async () => {
    const running = await start([
      callTools([
        { name: 'describe_table', args: { table: 'customers' } },
        { name: 'describe_table', args: { table: 'services' } },
      ]),
    ]);
    const completion = await clientFor(running).complete({ messages: question, tools: [runSql] });
    expect(completion.toolCalls.map((call) => [call.name, call.arguments])).toEqual([
      ['describe_table', '{"table":"customers"}'],
      ['describe_table', '{"table":"services"}'],
    ]);
    expect(new Set(completion.toolCalls.map((call) => call.id)).size).toBe(2);
  });

  it('hands malformed tool arguments over as raw text instead of throwing', async () => {
    const running = await start([malformedToolCall('run_sql', '{"sql": "SELECT 1",')]);
    const completion = await clientFor(running).complete({ messages: question, tools: [runSql] });
    expect(completion.toolCalls[0]).toMatchObject({ name: 'run_sql', arguments: '{"sql": "SELECT 1",' });
  });

  it('sends model, temperature, max tokens, tools and the conversation in OpenAI wire shape', async () => {
    const running = await start([say('ok'), say('ok')]);
    const client = clientFor(running);
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are tally.' },
      { role: 'user', content: 'Count customers.' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'run_sql', arguments: '{"sql":"x"}' }] },
      { role: 'tool', toolCallId: 'call_1', content: '7043' },
    ];
    await client.complete({ messages, tools: [runSql], params: { temperature: 0.2, maxTokens: 300 } });
    await client.complete({ messages: question, params: { model: 'other-model' } });

    const [first, second] = running.chatRequests;
    expect(first?.body).toMatchObject({
      model: 'scripted-model',
      temperature: 0.2,
      max_tokens: 300,
      tools: [{ type: 'function', function: { name: 'run_sql', parameters: runSql.parameters } }],
      messages: [
        { role: 'system', content: 'You are tally.' },
        { role: 'user', content: 'Count customers.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run_sql', arguments: '{"sql":"x"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '7043' },
      ],
    });
    expect(second?.body?.model).toBe('other-model');
    expect(second?.body).not.toHaveProperty('tools');
    expect(second?.body).not.toHaveProperty('temperature');
    expect(first?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('sends a placeholder key when none is configured', async () => {
    const running = await start([say('ok')]);
    await clientFor(running, { apiKey: undefined }).complete({ messages: question });
    expect(running.chatRequests[0]?.headers.authorization).toBe('Bearer not-needed');
  });

  it('is built from LLM_* settings by createLlmClient', async () => {
    const running = await start([say('ok')]);
    const settings: LlmSettings = {
      baseUrl: running.url,
      apiKey: API_KEY,
      model: 'configured-model',
      stageModels: {},
      timeoutMs: 5_000,
      maxRetries: 0,
    };
    const client = createLlmClient(settings, createLogger({ level: 'silent' }));
    expect(client.model).toBe('configured-model');
    await client.complete({ messages: question });
    expect(running.chatRequests[0]?.body?.model).toBe('configured-model');
  });
});

describe('OpenAiLlmClient: retries and errors', () => {
  it('waits as long as Retry-After says, then succeeds', async () => {
    const running = await start([rateLimit({ retryAfterSeconds: 1 }), say('after the wait')]);
    const completion = await clientFor(running).complete({ messages: question });
    expect(completion.message.content).toBe('after the wait');
    const [first, second] = running.chatRequests;
    expect(running.chatRequests).toHaveLength(2);
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(1_000 - 50);
  });

  it('prefers retry-after-ms to Retry-After', async () => {
    const running = await start([rateLimit({ retryAfterMs: 300, retryAfterSeconds: 60 }), say('ok')]);
    const completion = await clientFor(running).complete({ messages: question });
    expect(completion.message.content).toBe('ok');
    const [first, second] = running.chatRequests;
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(300 - 50);
  });

  it('gives up on 429 after the retries with LlmRateLimitedError carrying Retry-After', async () => {
    const running = await start([rateLimit({ retryAfterMs: 20 }), rateLimit({ retryAfterMs: 20 })]);
    const error = await clientFor(running, { maxRetries: 1 })
      .complete({ messages: question })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmRateLimitedError);
    expect(error).toMatchObject({ code: 'LLM_RATE_LIMITED', retryAfterMs: 20 });
    expect((error as Error).message).toContain('LLM_MAX_RETRIES');
    expect(running.chatRequests).toHaveLength(2);
  });

  it('recovers from a 500', async () => {
    const running = await start([serverError(), say('recovered')]);
    const completion = await clientFor(running).complete({ messages: question });
    expect(completion.message.content).toBe('recovered');
  });

  it('reports 500 after every retry as LlmUnavailableError naming LLM_BASE_URL', async () => {
    const running = await start([serverError('boom 1'), serverError('boom 2'), serverError('boom 3'), say('never')]);
    const error = await clientFor(running, { maxRetries: 2 })
      .complete({ messages: question })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect((error as Error).message).toContain('LLM_BASE_URL');
    expect((error as Error).message).toContain('boom 3');
    expect(running.chatRequests).toHaveLength(3);
    expect(running.remainingSteps).toBe(1);
  });

  it('reports a refused connection as LlmUnavailableError', async () => {
    const running = await start([]);
    const url = running.url;
    await running.close();
    server = undefined;
    const error = await new OpenAiLlmClient({ baseUrl: url, model: 'm', maxRetries: 1, retryDelayMs: 5 })
      .complete({ messages: question })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect((error as Error).message).toContain('LLM_BASE_URL');
  });

  it('reports a rejected key as LlmAuthError naming LLM_API_KEY, without retrying', async () => {
    const running = await start([say('never')], { apiKey: 'the-right-key' });
    const error = await clientFor(running)
      .complete({ messages: question })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmAuthError);
    expect((error as Error).message).toContain('LLM_API_KEY');
    expect(running.chatRequests).toHaveLength(1);
  });

  it('reports a bad request as LlmRequestError with the server message', async () => {
    const running = await start([fail(400, "Invalid value for 'temperature': must be at most 2.")]);
    const error = await clientFor(running)
      .complete({ messages: question, params: { temperature: 9 } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect((error as Error).message).toContain("Invalid value for 'temperature': must be at most 2.");
    expect(running.chatRequests).toHaveLength(1);
  });

  it('reports an endpoint that rejects tools as LlmToolsUnsupportedError', async () => {
    const running = await start([fail(400, 'registry.ollama.ai/library/gemma:2b does not support tools')]);
    const error = await clientFor(running, { model: 'gemma:2b' })
      .complete({ messages: question, tools: [runSql] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmToolsUnsupportedError);
    expect((error as Error).message).toMatch(/gemma:2b/);
    expect((error as Error).message).toContain('LLM_MODEL');
    expect((error as Error).message).toContain('LLM_BASE_URL');
    expect(running.chatRequests).toHaveLength(1);
  });

  it('times out a slow answer with LlmTimeoutError naming LLM_TIMEOUT_MS, without retrying', async () => {
    const running = await start([slow(3_000, say('too late')), say('never')]);
    const error = await clientFor(running, { timeoutMs: 200 })
      .complete({ messages: question })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmTimeoutError);
    expect((error as Error).message).toContain('LLM_TIMEOUT_MS');
    expect(running.chatRequests).toHaveLength(1);
  });

  it('cancels mid-request on abort and sends nothing more', async () => {
    const running = await start([slow(3_000, say('too late')), say('never'), say('never')]);
    const controller = new AbortController();
    const pending = clientFor(running)
      .complete({ messages: question, signal: controller.signal })
      .catch((caught: unknown) => caught);
    await waitFor(() => running.chatRequests.length === 1);
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(LlmCancelledError);
    expect((error as Error).name).toBe('AbortError');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(running.chatRequests).toHaveLength(1);
  });

  it('cancels during the backoff before a retry', async () => {
    const running = await start([rateLimit({ retryAfterSeconds: 30 }), say('never')]);
    const controller = new AbortController();
    const pending = clientFor(running, { maxRetryDelayMs: 60_000 })
      .complete({ messages: question, signal: controller.signal })
      .catch((caught: unknown) => caught);
    await waitFor(() => running.chatRequests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await pending).toBeInstanceOf(LlmCancelledError);
    expect(running.chatRequests).toHaveLength(1);
  });

  it('never writes the API key to the log', async () => {
    const { lines, logger } = captureLogs();
    const running = await start([serverError(), say('ok'), fail(401, 'bad key')]);
    const client = new OpenAiLlmClient({ baseUrl: running.url, apiKey: API_KEY, model: 'm', retryDelayMs: 5, logger });
    await client.complete({ messages: question, tools: [runSql] });
    const error = await client.complete({ messages: question }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmAuthError);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.join('')).toContain('retrying');
    expect(lines.join('')).not.toContain(API_KEY);
    expect((error as Error).message).not.toContain(API_KEY);
  });

  it('scrubs the key from server messages that echo it', async () => {
    const { lines, logger } = captureLogs();
    const running = await start([fail(401, `Incorrect API key provided: ${API_KEY}.`)]);
    const error = await clientFor(running, { logger })
      .complete({ messages: question })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmAuthError);
    expect((error as Error).message).toContain('Incorrect API key provided: [redacted].');
    expect((error as Error).cause).toBeUndefined();
    logger.error({ err: error }, 'model request failed');
    expect(lines.join('')).toContain('[redacted]');
    expect(lines.join('')).not.toContain(API_KEY);
  });
});

describe('OpenAiLlmClient: embeddings', () => {
  const texts = ['Why do customers leave?', 'Cluster the customers', 'Why do customers stay?'];

  it('returns one vector per text in input order, from the configured embedding model', async () => {
    const running = await start([say('still next')]);
    const client = clientFor(running, { embeddingModel: 'scripted-embedder' });
    const vectors = await client.embed?.(texts);
    expect(vectors).toEqual(texts.map((text) => hashedWordVector(text)));
    expect(running.embeddingRequests).toHaveLength(1);
    expect(running.embeddingRequests[0]?.body).toEqual({
      model: 'scripted-embedder',
      input: texts,
      encoding_format: 'float',
    });
    expect(running.embeddingRequests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(running.chatRequests).toEqual([]);
    expect(running.remainingSteps).toBe(1);
    expect(await client.embed?.([])).toEqual([]);
    expect(running.embeddingRequests).toHaveLength(1);
  });

  it('puts the vectors back in input order when the server lists them out of order', async () => {
    // A bare server, since the scripted one always answers in order.
    const data = [
      { object: 'embedding', index: 2, embedding: [0, 0, 1] },
      { object: 'embedding', index: 0, embedding: [1, 0, 0] },
      { object: 'embedding', index: 1, embedding: [0, 1, 0] },
    ];
    let answer: unknown = { object: 'list', data, model: 'e', usage: { prompt_tokens: 3, total_tokens: 3 } };
    const bare = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = bare.address() as AddressInfo;
      const client = new OpenAiLlmClient({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', embeddingModel: 'e' });
      expect(await client.embed?.(texts)).toEqual([
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
      ]);
      answer = { object: 'list', data: data.slice(1), model: 'e' };
      const error = await client.embed?.(texts).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LlmResponseInvalidError);
      expect((error as Error).message).toContain('got 2 embedding(s) for 3 input(s)');
    } finally {
      await new Promise((resolve) => bare.close(resolve));
    }
  });

  it('has no embed without an embedding model, and one that works detached with it', async () => {
    const running = await start([]);
    expect(clientFor(running).embed).toBeUndefined();
    expect('embed' in clientFor(running)).toBe(false);
    const settings: LlmSettings = {
      baseUrl: running.url,
      apiKey: API_KEY,
      model: 'configured-model',
      embeddingModel: 'configured-embedder',
      stageModels: {},
      timeoutMs: 5_000,
      maxRetries: 0,
    };
    const { embed } = createLlmClient(settings, createLogger({ level: 'silent' }));
    expect(await embed?.(['churn'])).toEqual([hashedWordVector('churn')]);
    expect(running.embeddingRequests[0]?.body?.model).toBe('configured-embedder');
    const { embeddingModel: _, ...withoutEmbeddings } = settings;
    expect(createLlmClient(withoutEmbeddings, createLogger({ level: 'silent' })).embed).toBeUndefined();
  });

  it('retries a 500 like a completion, then reports LlmUnavailableError naming LLM_BASE_URL', async () => {
    let failures = 1;
    const running = await start([], {
      embed: (text) => (failures-- > 0 ? serverError('embedder warming up') : hashedWordVector(text)),
    });
    const client = clientFor(running, { embeddingModel: 'e', maxRetries: 2 });
    expect(await client.embed?.(['churn'])).toEqual([hashedWordVector('churn')]);
    expect(running.embeddingRequests).toHaveLength(2);

    failures = 10;
    const error = await client.embed?.(['churn']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect((error as Error).message).toContain('LLM_BASE_URL');
    expect((error as Error).message).toContain('embedder warming up');
    expect(running.embeddingRequests).toHaveLength(2 + 3);
  });

  it('reports 429 after the retries as LlmRateLimitedError carrying Retry-After', async () => {
    const running = await start([], { embed: () => rateLimit({ retryAfterMs: 20 }) });
    const error = await clientFor(running, { embeddingModel: 'e', maxRetries: 1 })
      .embed?.(texts)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmRateLimitedError);
    expect(error).toMatchObject({ code: 'LLM_RATE_LIMITED', retryAfterMs: 20 });
    expect(running.embeddingRequests).toHaveLength(2);
  });

  it('reports a rejected request as LlmRequestError, without retrying', async () => {
    const running = await start([], { embed: () => fail(404, "The model 'nope' does not exist.") });
    const error = await clientFor(running, { embeddingModel: 'nope' })
      .embed?.(texts)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect((error as Error).message).toContain("The model 'nope' does not exist.");
    expect(running.embeddingRequests).toHaveLength(1);
  });

  it('cancels during the backoff before a retry', async () => {
    const running = await start([], { embed: () => rateLimit({ retryAfterSeconds: 30 }) });
    const controller = new AbortController();
    const pending = clientFor(running, { embeddingModel: 'e', maxRetryDelayMs: 60_000 })
      .embed?.(texts, { signal: controller.signal })
      .catch((caught: unknown) => caught);
    await waitFor(() => running.embeddingRequests.length === 1);
    controller.abort();
    expect(await pending).toBeInstanceOf(LlmCancelledError);
    expect(running.embeddingRequests).toHaveLength(1);
  });
});

describe('scripted model server: streaming through the openai SDK', () => {
  it('streams text and tool-call deltas the SDK reassembles', async () => {
    const running = await start([
      say('Churn is highest on month-to-month contracts.'),
      callTools([
        { name: 'run_sql', args: { sql: 'SELECT contract, AVG(churn) FROM customers GROUP BY contract' } },
        { name: 'list_tables', args: {} },
      ]),
    ]);
    const sdk = new OpenAI({ baseURL: running.url, apiKey: API_KEY, maxRetries: 0 });

    const textStream = await sdk.chat.completions.create({
      model: 'scripted-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null | undefined;
    for await (const chunk of textStream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('Churn is highest on month-to-month contracts.');
    expect(finish).toBe('stop');
    expect(usage?.total_tokens).toBeGreaterThan(0);

    const toolStream = sdk.chat.completions.stream({
      model: 'scripted-model',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'run_sql', parameters: runSql.parameters } }],
    });
    const final = await toolStream.finalChatCompletion();
    const calls = final.choices[0]?.message.tool_calls ?? [];
    expect(
      calls.map((call) => (call.type === 'function' ? [call.function.name, call.function.arguments] : [])),
    ).toEqual([
      ['run_sql', '{"sql":"SELECT contract, AVG(churn) FROM customers GROUP BY contract"}'],
      ['list_tables', '{}'],
    ]);
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(running.chatRequests[1]?.body?.stream).toBe(true);
  });
});
