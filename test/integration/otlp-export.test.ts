/**
 * The OpenTelemetry tracing against a stand-in collector (test/support/otlp-receiver.ts), configured the
 * way tally is, from the standard OTEL_* variables through loadConfig: spans nest by async context, arrive
 * over OTLP/HTTP in protobuf (the default) and in JSON, with the headers and the resource asked for; a
 * model request carries the GenAI attributes, cached tokens among them; a failure says its kind, never its
 * message; and nothing is sent after shutdown.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/base/config.js';
import { SqlRejectedError } from '../../src/base/errors.js';
import { tracedLlm } from '../../src/llm/traced-llm-client.js';
import { createOtelTracing } from '../../src/ops/otel-tracing.js';
import type { Completion, LlmClient } from '../../src/ports/llm.js';
import type { Tracing } from '../../src/ports/tracing.js';
import { childrenOf, type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';

const SECRET_WORDS = 'ZQX-MESSAGE-TEXT-7141';

let receiver: OtlpReceiver;

function spanNamed(name: string): ReceivedSpan {
  const span = receiver.spans.find((candidate) => candidate.name === name);
  if (!span)
    throw new Error(`no span named ${name}; got ${receiver.spans.map((candidate) => candidate.name).join(', ')}`);
  return span;
}
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

function tracingFrom(env: Record<string, string>): Tracing {
  const config = loadConfig({ TALLY_HOME: '/tmp/tally-otlp-test', TALLY_INSTANCE: 'otlp-test', ...env });
  if (!config.tracing) throw new Error('tracing is off');
  return createOtelTracing(config.tracing, { instance: config.instance });
}

const fakeModel = (completion: Partial<Completion>): LlmClient => ({
  model: 'configured-model',
  complete: async () => ({
    message: { role: 'assistant', content: SECRET_WORDS },
    toolCalls: [],
    usage: { promptTokens: 1200, completionTokens: 40, cachedTokens: 1024 },
    finishReason: 'stop',
    model: 'provider-model-2026-01',
    ...completion,
  }),
});

async function nestedWork(tracing: Tracing): Promise<void> {
  await tracing.span('tally.turn', { 'gen_ai.conversation.id': 'console:t:1' }, async (turn) => {
    turn.set({ 'tally.turn.handled': 'request' });
    // Two children at once: each keeps its own parent through the awaits in it.
    await Promise.all([
      tracing.span('execute_tool run_sql', { 'gen_ai.tool.name': 'run_sql' }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        await tracing.span('SELECT telco', { 'db.query.text': 'SELECT 1' }, async () => {}, { kind: 'client' });
      }),
      tracing.span('execute_tool run_python', { 'gen_ai.tool.name': 'run_python' }, async () => {
        await tracing.span('tally.cell', { 'tally.cell.code_bytes': 12 }, async () => {});
      }),
    ]);
  });
}

describe('the OTLP trace export', () => {
  it('sends nested spans as OTLP/HTTP protobuf to /v1/traces under OTEL_EXPORTER_OTLP_ENDPOINT, with its headers', async () => {
    const tracing = tracingFrom({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=abc%3D123',
      OTEL_SERVICE_NAME: 'tally-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    });
    await nestedWork(tracing);
    await tracing.shutdown();

    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const request of receiver.requests) {
      expect(request.path).toBe('/v1/traces');
      expect(request.contentType).toBe('application/x-protobuf');
      expect(request.headers['x-collector-key']).toBe('abc=123');
    }
    const turn = spanNamed('tally.turn');
    expect(turn.parentSpanId).toBe('');
    expect(turn.attributes).toEqual({ 'gen_ai.conversation.id': 'console:t:1', 'tally.turn.handled': 'request' });
    expect(turn.resource).toMatchObject({
      'service.name': 'tally-under-test',
      'service.instance.id': 'otlp-test',
      'deployment.environment.name': 'test',
    });
    expect(
      childrenOf(receiver.spans, turn)
        .map((span) => span.name)
        .sort(),
    ).toEqual(['execute_tool run_python', 'execute_tool run_sql']);
    expect(childrenOf(receiver.spans, spanNamed('execute_tool run_sql')).map((span) => span.name)).toEqual([
      'SELECT telco',
    ]);
    expect(childrenOf(receiver.spans, spanNamed('execute_tool run_python')).map((span) => span.name)).toEqual([
      'tally.cell',
    ]);
    expect(spanNamed('SELECT telco').kind).toBe(3); // client
    expect(new Set(receiver.spans.map((span) => span.traceId)).size).toBe(1);
  });

  it('sends OTLP/JSON to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT when OTEL_EXPORTER_OTLP_PROTOCOL=http/json', async () => {
    const tracing = tracingFrom({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    await nestedWork(tracing);
    await tracing.shutdown();
    expect(receiver.requests.every((request) => request.contentType.startsWith('application/json'))).toBe(true);
    const turn = receiver.spans.find((span) => span.name === 'tally.turn');
    expect(turn?.resource['service.name']).toBe('tally');
    expect(receiver.spans.find((span) => span.name === 'SELECT telco')?.parentSpanId).toBe(
      receiver.spans.find((span) => span.name === 'execute_tool run_sql')?.spanId,
    );
  });

  it('describes a model request by the GenAI conventions, cached tokens included, and none of its text', async () => {
    const tracing = tracingFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const llm = tracedLlm(fakeModel({}), tracing, { baseUrl: 'https://user:pw@models.example.com/v1' });
    await llm.complete({
      messages: [{ role: 'user', content: SECRET_WORDS }],
      params: { model: 'asked-model', temperature: 0.2, maxTokens: 500 },
    });
    await tracing.shutdown();
    const [span] = receiver.spans;
    expect(span?.name).toBe('chat asked-model');
    expect(span?.kind).toBe(3);
    expect(span?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'asked-model',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 500,
      'gen_ai.response.model': 'provider-model-2026-01',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 40,
      'gen_ai.usage.cache_read.input_tokens': 1024,
      'server.address': 'models.example.com',
      'server.port': 443,
      'tally.llm.messages': 1,
      'tally.llm.tools': 0,
      'tally.llm.tool_calls': 0,
    });
    expect(receiver.payload()).not.toContain(SECRET_WORDS);
    expect(receiver.payload()).not.toContain('pw@');
  });

  it('ends a failed span with the error kind and status, never the message; sends nothing after shutdown', async () => {
    const tracing = tracingFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    await expect(
      tracing.span('SELECT telco', {}, async () => {
        throw new SqlRejectedError('guard', `no writes: ${SECRET_WORDS}`);
      }),
    ).rejects.toThrow(SqlRejectedError);
    await tracing.span('tally.cell', {}, async (span) => span.fail('ZeroDivisionError'));
    await tracing.shutdown();
    await tracing.span('after shutdown', {}, async () => {});
    const byName = new Map(receiver.spans.map((span) => [span.name, span]));
    expect(byName.get('SELECT telco')?.attributes['error.type']).toBe('SQL_REJECTED');
    expect(byName.get('SELECT telco')?.status.code).toBe(2);
    expect(byName.get('tally.cell')?.attributes['error.type']).toBe('ZeroDivisionError');
    expect(byName.has('after shutdown')).toBe(false);
    expect(receiver.payload()).not.toContain(SECRET_WORDS);
  });
});
