/**
 * Tracing for a tally: OpenTelemetry's SDK, loaded and started only when the config has an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT or _TRACES_ENDPOINT), else nothing at all; and the decorators that put spans
 * around the model client, the kernels and each message's databases, applied only when tracing is on.
 */
import type { Config } from '../base/config.js';
import type { Logger } from '../base/logger.js';
import { tracedDatabase } from '../db/traced-database.js';
import { tracedLlm } from '../llm/traced-llm-client.js';
import { tracedSandbox } from '../ops/traced-sandbox.js';
import type { AuditTrail } from '../ports/audit.js';
import type { LlmClient } from '../ports/llm.js';
import type { Sandbox } from '../ports/sandbox.js';
import { NO_TRACING, type Tracing } from '../ports/tracing.js';

export interface TallyTracing {
  tracing: Tracing;
  /** The model client with a span per request. */
  llm(llm: LlmClient): LlmClient;
  /** The sandbox whose kernels make a span per cell. */
  sandbox(sandbox: Sandbox): Sandbox;
  /**
   * The audit trail whose `watch` (how a message's turn gets its databases, under the access policy or not) also
   * makes a span per statement, above the policy, so the span has the SQL as written, as the audit record does.
   */
  audit(audit: AuditTrail): AuditTrail;
}

export async function startTracing(config: Config, logger: Logger): Promise<TallyTracing> {
  const settings = config.tracing;
  if (!settings)
    return { tracing: NO_TRACING, llm: (llm) => llm, sandbox: (sandbox) => sandbox, audit: (audit) => audit };
  const { createOtelTracing } = await import('../ops/otel-tracing.js');
  const tracing = createOtelTracing(settings, { instance: config.instance });
  logger.info({ endpoint: endpointOf(settings.url), protocol: settings.protocol }, 'sending traces over OTLP');
  return {
    tracing,
    llm: (llm) => tracedLlm(llm, tracing, { baseUrl: config.llm.baseUrl }),
    sandbox: (sandbox) => tracedSandbox(sandbox, tracing),
    audit: (audit) => ({
      within: (actor, task) => audit.within(actor, task),
      actor: () => audit.actor(),
      record: (event) => audit.record(event),
      watch: (database) => tracedDatabase(audit.watch(database), tracing),
    }),
  };
}

/** The traces URL as logged: without a user or password in it. */
function endpointOf(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'unparsable';
  }
}
