/**
 * A stand-in for an OpenTelemetry collector's OTLP/HTTP receiver: POST /v1/traces on a free port, in
 * protobuf (decoded by otlp-protobuf.ts) or JSON, gzip or not. It keeps every request's raw body (to search
 * what was sent for text that must never be in it) and the spans decoded from it. close() stops it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeTraceRequest, type ReceivedSpan, type SpanValue } from './otlp-protobuf.js';

export type { ReceivedSpan, SpanValue };

export interface OtlpReceiver {
  /** The base endpoint, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Each request's body as sent (decompressed), with its content type and headers. */
  requests: Array<{ path: string; contentType: string; headers: Record<string, string>; body: Buffer }>;
  /** Every body, joined as text: what a search for leaked text looks in. */
  payload(): string;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const raw = Buffer.concat(chunks);
        const body = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        const contentType = request.headers['content-type'] ?? '';
        const headers = Object.fromEntries(Object.entries(request.headers).map(([key, value]) => [key, String(value)]));
        requests.push({ path: request.url ?? '', contentType, headers, body });
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        spans.push(...(contentType.includes('json') ? decodeJson(body) : decodeTraceRequest(body)));
        response.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : contentType });
        response.end(contentType.includes('json') ? '{}' : Buffer.alloc(0));
      } catch (error) {
        response.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    payload: () => requests.map((request) => request.body.toString('latin1')).join('\n'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type JsonValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonValue[] };
};
type JsonAttributes = Array<{ key: string; value?: JsonValue }> | undefined;

const jsonValue = (value: JsonValue | undefined): SpanValue => {
  if (!value) return '';
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return (value.arrayValue?.values ?? []).map((item) => String(jsonValue(item)));
};
const attributesOf = (list: JsonAttributes) =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, jsonValue(value)]));

/** OTLP/JSON (lowerCamelCase fields, ids as hex). */
function decodeJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans?: Array<{
      resource?: { attributes?: JsonAttributes };
      scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
    }>;
  };
  return (request.resourceSpans ?? []).flatMap((resourceSpans) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: String(span.traceId ?? ''),
        spanId: String(span.spanId ?? ''),
        parentSpanId: String(span.parentSpanId ?? ''),
        name: String(span.name ?? ''),
        kind: Number(span.kind ?? 0),
        attributes: attributesOf(span.attributes as JsonAttributes),
        events: ((span.events ?? []) as Array<{ name?: string; attributes?: JsonAttributes }>).map((event) => ({
          name: event.name ?? '',
          attributes: attributesOf(event.attributes),
        })),
        status: {
          code: Number((span.status as { code?: number } | undefined)?.code ?? 0),
          message: String((span.status as { message?: string } | undefined)?.message ?? ''),
        },
        resource: attributesOf(resourceSpans.resource?.attributes),
      })),
    ),
  );
}

/** The spans under `parent` (its children), by name. */
export function childrenOf(spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId);
}
