/**
 * The trace export's settings from OpenTelemetry's standard variables (OTEL_EXPORTER_OTLP_ENDPOINT and
 * _TRACES_ENDPOINT, _HEADERS, _PROTOCOL, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_SDK_DISABLED,
 * OTEL_TRACES_EXPORTER), read as the OpenTelemetry specification reads them. config.ts calls it with the
 * environment it checked; without an endpoint there are no settings, and nothing is started.
 */
import type { TracingSettings } from './config-types.js';

/** The OTEL_* variables as the environment schema checked them. */
export interface TracingVariables {
  OTEL_SDK_DISABLED?: string | undefined;
  OTEL_TRACES_EXPORTER?: string | undefined;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_HEADERS?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_HEADERS?: string | undefined;
  OTEL_EXPORTER_OTLP_PROTOCOL?: TracingSettings['protocol'] | undefined;
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: TracingSettings['protocol'] | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
  OTEL_RESOURCE_ATTRIBUTES?: string | undefined;
}

/** Where and how spans are sent, or undefined when tracing is off (no endpoint, disabled, or exporter `none`). */
export function tracingSettings(e: TracingVariables): TracingSettings | undefined {
  if (e.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (e.OTEL_TRACES_EXPORTER !== undefined && !listOf(e.OTEL_TRACES_EXPORTER).includes('otlp')) return undefined;
  const url = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? signalUrl(e.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (url === undefined) return undefined;
  const resource = pairsOf(e.OTEL_RESOURCE_ATTRIBUTES ?? '');
  return {
    url,
    protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    headers: { ...pairsOf(e.OTEL_EXPORTER_OTLP_HEADERS ?? ''), ...pairsOf(e.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? '') },
    // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES, as the specification says.
    serviceName: e.OTEL_SERVICE_NAME ?? resource['service.name'] ?? 'tally',
    resourceAttributes: resource,
  };
}

/** The traces URL under a base endpoint: `http://collector:4318` -> `http://collector:4318/v1/traces`. */
function signalUrl(base: string | undefined): string | undefined {
  if (base === undefined) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

const listOf = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');

/** `key1=value1,key2=value2` with percent-encoded values (the W3C Baggage form the OTEL_* lists use). */
export function pairsOf(value: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const entry of value.split(',')) {
    const at = entry.indexOf('=');
    if (at <= 0) continue;
    const key = entry.slice(0, at).trim();
    const raw = entry.slice(at + 1).trim();
    if (key === '') continue;
    try {
      pairs[key] = decodeURIComponent(raw);
    } catch {
      pairs[key] = raw;
    }
  }
  return pairs;
}
