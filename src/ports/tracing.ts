/**
 * The tracing port: spans around a turn and the work inside it (model requests, tool calls, SQL statements,
 * cells, report decisions), nested by the async context they run in. Implemented on OpenTelemetry in
 * `src/ops/otel-tracing.ts`, started only when an OTLP endpoint is configured; `NO_TRACING` otherwise.
 *
 * What goes into a span follows the audit's rule (src/ports/audit.ts): names, ids, counts, sizes, durations,
 * models and error kinds; the SQL as written; never message text, rows, cell code or output, or results.
 */

/** Attribute values a span may hold; `undefined` ones are left out. */
export type SpanValue = string | number | boolean | string[] | undefined;
export type SpanAttributes = Record<string, SpanValue>;

/** The span of the task running now, as the task sees it. */
export interface ActiveSpan {
  /** Adds or replaces attributes (what is known only once the work is done: tokens, rows). */
  set(attributes: SpanAttributes): void;
  /** Marks the span failed without an exception: `errorType` is a kind (`ZeroDivisionError`, `sql_rejected`). */
  fail(errorType: string): void;
}

export interface SpanOptions {
  /** `client` for calls that leave the process (the model, a database); default `internal`. */
  kind?: 'internal' | 'client';
}

export interface Tracing {
  /**
   * Runs `task` inside a new span, a child of the span running now. A thrown error ends the span failed, with
   * `error.type` set to the error's code or class name (never its message, which may quote data).
   */
  span<T>(
    name: string,
    attributes: SpanAttributes,
    task: (span: ActiveSpan) => Promise<T>,
    options?: SpanOptions,
  ): Promise<T>;
  /** Sends what is still buffered and stops; later spans are dropped. */
  shutdown(): Promise<void>;
}

const NO_SPAN: ActiveSpan = { set: () => {}, fail: () => {} };

/** Traces nothing (no OTLP endpoint configured, OTEL_SDK_DISABLED, tests). */
export const NO_TRACING: Tracing = {
  span: (_name, _attributes, task) => task(NO_SPAN),
  shutdown: async () => {},
};
