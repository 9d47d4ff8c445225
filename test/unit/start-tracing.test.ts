/**
 * Tracing starts only when the config has an OTLP endpoint: without one tally keeps its parts unwrapped (no span,
 * no cost), with one the model client, the sandbox and the audit's watch come back wrapped.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/base/config.js';
import { createLogger } from '../../src/base/logger.js';
import { NO_AUDIT } from '../../src/ports/audit.js';
import type { LlmClient } from '../../src/ports/llm.js';
import type { Sandbox } from '../../src/ports/sandbox.js';
import { NO_TRACING } from '../../src/ports/tracing.js';
import { startTracing } from '../../src/wiring/start-tracing.js';

const logger = createLogger({ level: 'silent' });
const llm: LlmClient = { model: 'm', complete: async () => Promise.reject(new Error('not called')) };
const sandbox: Sandbox = {
  acquire: async () => Promise.reject(new Error('not called')),
  release: async () => false,
  close: async () => {},
};

describe('startTracing', () => {
  it('leaves every part as it is without an endpoint, or with OTEL_SDK_DISABLED=true', async () => {
    for (const env of [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' }]) {
      const traced = await startTracing(loadConfig({ TALLY_HOME: '/tmp/tally-start-tracing', ...env }), logger);
      expect(traced.tracing).toBe(NO_TRACING);
      expect(traced.llm(llm)).toBe(llm);
      expect(traced.sandbox(sandbox)).toBe(sandbox);
      expect(traced.audit(NO_AUDIT)).toBe(NO_AUDIT);
    }
  });

  it('wraps them when an endpoint is set', async () => {
    const config = loadConfig({
      TALLY_HOME: '/tmp/tally-start-tracing',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
    });
    const traced = await startTracing(config, logger);
    expect(traced.tracing).not.toBe(NO_TRACING);
    expect(traced.llm(llm)).not.toBe(llm);
    expect(traced.sandbox(sandbox)).not.toBe(sandbox);
    expect(traced.audit(NO_AUDIT)).not.toBe(NO_AUDIT);
    await traced.tracing.shutdown();
  });
});
