/**
 * The `Metrics` port over `prom-client`, rendered in the Prometheus text format at `GET /metrics`
 * (see `ops-server.ts`). Every metric is named `tally_*`: the ones events update are defined in
 * `event-metrics.ts`, the ones read at scrape time in `scrape-time-metrics.ts`. Node's standard process
 * metrics (`process_*`, `nodejs_*`) keep their usual names so stock Node.js dashboards work unchanged.
 *
 * Each instance owns its own Registry, never prom-client's global one: several tallies (and test
 * files) can live in one process without "metric already registered" errors or mixed counts.
 *
 * Metrics never throw into the product: a negative or non-finite figure from a caller is dropped
 * rather than failing the turn that reported it.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Metrics, TurnEnd } from '../ports/metrics.js';
import { createEventMetrics, type EventMetrics } from './event-metrics.js';
import { isAmount } from './is-amount.js';
import { registerScrapeTimeMetrics, type ScrapeTimeSources } from './scrape-time-metrics.js';

export interface PrometheusMetricsOptions extends ScrapeTimeSources {
  /** Also export Node's process metrics (CPU, memory, event loop lag, GC). Default true. */
  processMetrics?: boolean;
}

/** The rendered exposition, ready to be sent as an HTTP response. */
export interface MetricsExposition {
  /** The `Content-Type` header value (Prometheus text format 0.0.4). */
  contentType: string;
  body: string;
}

export class PrometheusMetrics implements Metrics {
  private readonly registry = new Registry();
  private readonly eventMetrics: EventMetrics;

  constructor(options: PrometheusMetricsOptions = {}) {
    this.eventMetrics = createEventMetrics(this.registry);
    registerScrapeTimeMetrics(this.registry, options);
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  turnStarted(): (end: TurnEnd) => void {
    const { turnsInFlight, turnDuration, turns } = this.eventMetrics;
    turnsInFlight.inc();
    const stopTimer = turnDuration.startTimer();
    let ended = false;
    return (end) => {
      // A second call would count the turn twice and push the in-flight gauge below zero.
      if (ended) return;
      ended = true;
      turnsInFlight.dec();
      stopTimer({ end });
      turns.inc({ end });
    };
  }

  kernelStarted(durationMs: number, ok: boolean): void {
    const result = ok ? 'ok' : 'failed';
    this.eventMetrics.kernelStarts.inc({ result });
    if (isAmount(durationMs)) this.eventMetrics.kernelStartDuration.observe({ result }, durationMs / 1000);
  }

  cellRan(durationMs: number): void {
    if (isAmount(durationMs)) this.eventMetrics.cellDuration.observe(durationMs / 1000);
  }

  modelCalled(durationMs: number, tokens: { prompt: number; completion: number }, ok: boolean): void {
    const { modelDuration, modelTokens } = this.eventMetrics;
    if (isAmount(durationMs)) modelDuration.observe({ result: ok ? 'ok' : 'failed' }, durationMs / 1000);
    if (isAmount(tokens.prompt)) modelTokens.inc({ kind: 'prompt' }, tokens.prompt);
    if (isAmount(tokens.completion)) modelTokens.inc({ kind: 'completion' }, tokens.completion);
  }

  rowsExtracted(rows: number): void {
    if (isAmount(rows)) this.eventMetrics.extractionRows.inc(rows);
  }

  errorSeen(code: string): void {
    this.eventMetrics.errors.inc({ code });
  }

  refused(reason: string): void {
    this.eventMetrics.refusals.inc({ reason });
  }

  swept(what: string, count: number): void {
    if (isAmount(count)) this.eventMetrics.sweptItems.inc({ what }, count);
  }

  sweepEnded(result: 'done' | 'skipped' | 'failed'): void {
    this.eventMetrics.sweeps.inc({ result });
  }

  spent(resource: 'tokens' | 'kernel seconds', amount: number): void {
    if (isAmount(amount)) this.eventMetrics.spending.inc({ resource }, amount);
  }

  /** Every metric of this instance in the Prometheus text format; reads the scrape-time sources now. */
  async render(): Promise<MetricsExposition> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
