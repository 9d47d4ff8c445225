/** The LLM stand-in itself, spoken to with plain fetch so the wire shapes are checked as sent. */
import { afterEach, describe, expect, it } from 'vitest';
import {
  callTool,
  callTools,
  hashedWordVector,
  type ScriptedModelServer,
  type ScriptStep,
  say,
  slow,
  startScriptedModelServer,
  when,
} from '../../src/demo/scripted-model-server.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(script: ScriptStep[], options: { apiKey?: string; models?: string[] } = {}) {
  server = await startScriptedModelServer({ script, ...options });
  return server;
}

async function chat(running: ScriptedModelServer, body: Record<string, unknown>, key = 'anything') {
  const response = await fetch(`${running.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'scripted-model', ...body }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const user = (content: string) => ({ messages: [{ role: 'user', content }] });

describe('scripted model server', () => {
  it('answers steps in order in the OpenAI completion shape', async () => {
    const running = await start([say('hello'), callTool('run_sql', { sql: 'SELECT 1' }, { id: 'call_x' })]);
    const first = JSON.parse((await chat(running, user('hi'))).text);
    expect(first).toMatchObject({
      object: 'chat.completion',
      model: 'scripted-model',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) },
    });
    const second = JSON.parse((await chat(running, user('again'))).text);
    expect(second.choices[0]).toMatchObject({
      message: {
        content: null,
        tool_calls: [
          { id: 'call_x', type: 'function', function: { name: 'run_sql', arguments: '{"sql":"SELECT 1"}' } },
        ],
      },
      finish_reason: 'tool_calls',
    });
    expect(running.remainingSteps).toBe(0);
  });

  it('fails loudly with a 500 when the script runs out', async () => {
    const running = await start([say('only one')]);
    await chat(running, user('first'));
    const response = await chat(running, user('one too many'));
    expect(response.status).toBe(500);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const message: string = JSON.parse(response.text).error.message;
    expect(message).toContain('the script ran out after 1 step(s)');
    expect(message).toContain('one too many');
  });

  it('lets a step read the conversation, including the last tool result', async () => {
    const running = await start([
      callTool('list_tables', {}, { id: 'call_1' }),
      (context) =>
        say(`${context.lastToolResult?.name} said ${context.lastToolResult?.content} at t=${context.temperature}`),
    ]);
    await chat(running, user('tables?'));
    const answer = await chat(running, {
      temperature: 0.3,
      messages: [
        { role: 'user', content: 'tables?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_tables', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'customers, services' },
      ],
    });
    expect(JSON.parse(answer.text).choices[0].message.content).toBe('list_tables said customers, services at t=0.3');
  });

  it('answers a predicate step only when it matches, and keeps it next in line until then', async () => {
    const running = await start([
      when((context) => context.lastToolResult?.content === 'ok', say('saw ok'), 'waits for an ok tool result'),
    ]);
    const mismatch = await chat(running, user('no tool result yet'));
    expect(mismatch.status).toBe(500);
    expect(JSON.parse(mismatch.text).error.message).toContain('step 1 (waits for an ok tool result) does not match');
    expect(running.remainingSteps).toBe(1);
    const match = await chat(running, {
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 't', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: 'ok' },
      ],
    });
    expect(JSON.parse(match.text).choices[0].message.content).toBe('saw ok');
    expect(running.remainingSteps).toBe(0);
  });

  it('streams server-sent events with tool-call deltas by index, usage, and [DONE]', async () => {
    const running = await start([
      callTools([
        { name: 'a', args: { x: 1 } },
        { name: 'b', args: { y: 'long enough to split' } },
      ]),
    ]);
    const response = await chat(running, { ...user('go'), stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = response.text.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.replace(/^data: /, '')));
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    const joined = [0, 1].map((index) =>
      deltas
        .filter((delta: { index: number }) => delta.index === index)
        .map((delta: { function: { arguments: string } }) => delta.function.arguments)
        .join(''),
    );
    expect(joined).toEqual(['{"x":1}', '{"y":"long enough to split"}']);
    expect(
      deltas
        .filter((delta: { id?: string }) => delta.id)
        .map((delta: { function: { name: string } }) => delta.function.name),
    ).toEqual(['a', 'b']);
    expect(chunks.at(-2).choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
  });

  it('embeds a string or a list of strings without taking a script step', async () => {
    const running = await start([say('next')]);
    const embed = async (body: Record<string, unknown>) => {
      const response = await fetch(`${running.url}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer anything' },
        body: JSON.stringify({ model: 'embedder', ...body }),
      });
      return {
        status: response.status,
        json: (await response.json()) as { data: Array<{ index: number; embedding: number[] & string }> },
      };
    };
    const one = await embed({ input: 'Why do customers churn?' });
    expect(one.json).toMatchObject({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: hashedWordVector('Why do customers churn?') }],
      model: 'embedder',
      usage: { prompt_tokens: expect.any(Number), total_tokens: expect.any(Number) },
    });
    const texts = ['customers churn', 'customers who churn', 'weather in Paris'];
    const many = await embed({ input: texts });
    const [churn = [], alsoChurn = [], weather = []] = many.json.data.map((item) => item.embedding);
    const dot = (left: number[], right: number[]) =>
      left.reduce((sum, value, index) => sum + value * (right[index] ?? 0), 0);
    expect(churn).toHaveLength(64);
    expect(dot(churn, churn)).toBeCloseTo(1);
    expect(dot(churn, alsoChurn)).toBeGreaterThan(dot(churn, weather) + 0.3);
    const base64 = await embed({ input: texts, encoding_format: 'base64' });
    const bytes = Buffer.from(base64.json.data[1]?.embedding ?? '', 'base64');
    const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
    expect(decoded).toHaveLength(64);
    for (const [index, value] of decoded.entries()) expect(value).toBeCloseTo(alsoChurn[index] ?? Number.NaN, 6);
    expect((await embed({ input: [1, 2, 3] })).status).toBe(400);

    expect(running.requests).toHaveLength(4);
    expect(running.embeddingRequests).toHaveLength(4);
    expect(running.chatRequests).toEqual([]);
    expect(running.remainingSteps).toBe(1);
  });

  it('lists its models', async () => {
    const running = await start([], { models: ['scripted-model', 'other'] });
    const response = await fetch(`${running.url}/models`);
    expect(await response.json()).toMatchObject({
      object: 'list',
      data: [
        { id: 'scripted-model', object: 'model' },
        { id: 'other', object: 'model' },
      ],
    });
  });

  it('records every request with its headers and body, key included', async () => {
    const running = await start([say('ok')]);
    await chat(running, { ...user('hi'), temperature: 0 }, 'sk-visible');
    await fetch(`${running.url}/models`);
    expect(running.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /v1/chat/completions',
      'GET /v1/models',
    ]);
    expect(running.chatRequests).toHaveLength(1);
    expect(running.requests[0]?.headers.authorization).toBe('Bearer sk-visible');
    expect(running.requests[0]?.body).toMatchObject({ temperature: 0, messages: [{ role: 'user', content: 'hi' }] });
    expect(running.requests[0]?.receivedAt).toBeGreaterThan(0);
  });

  it('checks the key only when told to', async () => {
    const running = await start([say('ok')], { apiKey: 'right' });
    const wrong = await chat(running, user('hi'), 'wrong');
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text).error.code).toBe('invalid_api_key');
    expect((await chat(running, user('hi'), 'right')).status).toBe(200);
  });

  it('closes promptly while a slow step is still waiting', async () => {
    const running = await start([slow(60_000)]);
    const pending = chat(running, user('hi')).catch((error: unknown) => error);
    while (running.chatRequests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await running.close();
    server = undefined;
    expect(await pending).toBeInstanceOf(Error);
  });
});
