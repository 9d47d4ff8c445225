/**
 * The tracing port on OpenTelemetry's SDK: spans batched and sent over OTLP/HTTP (protobuf, or JSON with
 * OTEL_EXPORTER_OTLP_PROTOCOL=http/json) to the configured collector, nested through an AsyncLocalStorage
 * context manager of this tracing's own (not the process-wide one, so two tallies in one process keep their
 * traces apart). Loaded by src/wiring/start-tracing.ts only when an endpoint is set.
 */
import { type Context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TracingSettings } from '../base/config.js';
import type { SpanAttributes, Tracing } from '../ports/tracing.js';

export interface OtelTracingOptions {
  /** TALLY_INSTANCE, as `service.instance.id` unless OTEL_RESOURCE_ATTRIBUTES names one. */
  instance?: string;
}

export function createOtelTracing(settings: TracingSettings, options: OtelTracingOptions = {}): Tracing {
  const exporterOptions = { url: settings.url, headers: settings.headers };
  const exporter =
    settings.protocol === 'http/json'
      ? new JsonTraceExporter(exporterOptions)
      : new ProtobufTraceExporter(exporterOptions);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      ...(options.instance ? { 'service.instance.id': options.instance } : {}),
      ...settings.resourceAttributes,
      'service.name': settings.serviceName,
    }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('tally');
  const contexts = new AsyncLocalStorageContextManager().enable();
  let stopped = false;
  return {
    async span(name, attributes, task, spanOptions = {}) {
      if (stopped) return task({ set: () => {}, fail: () => {} });
      const parent: Context = contexts.active() ?? ROOT_CONTEXT;
      const span = tracer.startSpan(
        name,
        { kind: spanOptions.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes: defined(attributes) },
        parent,
      );
      const active = {
        set: (more: SpanAttributes) => {
          span.setAttributes(defined(more));
        },
        fail: (errorType: string) => {
          span.setAttribute('error.type', errorType);
          span.setStatus({ code: SpanStatusCode.ERROR });
        },
      };
      try {
        return await contexts.with(trace.setSpan(parent, span), () => task(active));
      } catch (error) {
        // The kind only: an error's message may quote a statement's values or the model's words.
        active.fail(errorType(error));
        throw error;
      } finally {
        span.end();
      }
    },
    async shutdown() {
      if (stopped) return;
      stopped = true;
      await provider.shutdown();
      contexts.disable();
    },
  };
}

function defined(attributes: SpanAttributes): Record<string, string | number | boolean | string[]> {
  const kept: Record<string, string | number | boolean | string[]> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) kept[key] = value;
  return kept;
}

/** An error's kind: tally's code (`SQL_REJECTED`, `LLM_RATE_LIMITED`), else its class name. */
export function errorType(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    return error.name || error.constructor.name || 'Error';
  }
  return typeof error;
}
