/**
 * The trace export's settings as config.ts reads OpenTelemetry's standard variables: nothing without an
 * endpoint or when disabled, the traces path under a base endpoint, a signal's own variables winning over
 * the general ones, headers and resource attributes as percent-encoded lists, and gRPC refused by name.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/base/config.js';
import { ConfigError } from '../../src/base/errors.js';

const tracing = (env: Record<string, string>) => loadConfig({ TALLY_HOME: '/tmp/tally-tracing-test', ...env }).tracing;

describe('the trace export settings', () => {
  it('are absent without an endpoint, with OTEL_SDK_DISABLED=true, or when OTEL_TRACES_EXPORTER is none', () => {
    expect(tracing({})).toBeUndefined();
    expect(tracing({ OTEL_SERVICE_NAME: 'tally-prod', OTEL_EXPORTER_OTLP_HEADERS: 'a=b' })).toBeUndefined();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracing({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(tracing({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracing({ ...endpoint, OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' })).toBeDefined();
  });

  it('send to /v1/traces under the base endpoint, or to the traces endpoint exactly as given', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'tally',
      resourceAttributes: {},
    });
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/ingest/' })?.url).toBe(
      'https://otel.example.com/ingest/v1/traces',
    );
    expect(
      tracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom',
      })?.url,
    ).toBe('http://traces:9999/custom');
  });

  it('read headers, protocol, service name and resource attributes, the traces variables winning', () => {
    const settings = tracing({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=analytics, authorization=Bearer%20abc%3D%3D',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-resource,deployment.environment.name=prod',
      OTEL_SERVICE_NAME: 'tally-eu',
    });
    expect(settings).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/json',
      headers: { 'x-team': 'traces', authorization: 'Bearer abc==' },
      serviceName: 'tally-eu',
      resourceAttributes: { 'service.name': 'from-resource', 'deployment.environment.name': 'prod' },
    });
    expect(
      tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_RESOURCE_ATTRIBUTES: 'service.name=svc' })
        ?.serviceName,
    ).toBe('svc');
  });

  it('refuse gRPC and an endpoint that is not a URL, naming the variable', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ TALLY_HOME: '/tmp/tally-tracing-test', ...env });
      } catch (error) {
        return (error as ConfigError).issues.map((issue) => issue.variable);
      }
      return [];
    };
    expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL',
    ]);
    expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT']);
    expect(() => loadConfig({ TALLY_HOME: '/tmp/x', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(ConfigError);
  });
});
