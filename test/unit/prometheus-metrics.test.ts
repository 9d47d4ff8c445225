/**
 * PrometheusMetrics as Prometheus sees it: the rendered text is read back with an independent
 * parser of the text format (parse-prometheus-text-format), never by matching our own strings.
 */
import { describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../src/ops/prometheus-metrics.js';
import type { KernelStats } from '../../src/ops/scrape-time-metrics.js';
import { type ParsedFamily, parseExposition, parseStrict, samples, sampleValue } from '../support/prometheus-text.js';

async function parse(metrics: PrometheusMetrics): Promise<ParsedFamily[]> {
  return parseStrict((await metrics.render()).body);
}

/** Every sample, histograms' lines included; throws on any line that is not valid text format. */
async function scrape(metrics: PrometheusMetrics): Promise<ParsedFamily[]> {
  return parseExposition((await metrics.render()).body);
}

const value = sampleValue;

const count = (families: ParsedFamily[], histogram: string, labels: Record<string, string> = {}) =>
  value(families, `${histogram}_count`, labels);
const sum = (families: ParsedFamily[], histogram: string, labels: Record<string, string> = {}) =>
  value(families, `${histogram}_sum`, labels);
const bucket = (families: ParsedFamily[], histogram: string, le: string) =>
  value(families, `${histogram}_bucket`, { le });

describe('PrometheusMetrics', () => {
  it('renders every tally metric in the text format, with known series at zero before any event', async () => {
    const metrics = new PrometheusMetrics({ sandboxStats: () => stats() });
    const { contentType } = await metrics.render();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);

    const types = Object.fromEntries(
      (await parse(metrics)).filter((f) => f.name.startsWith('tally_')).map((f) => [f.name, f.type] as const),
    );
    const families = await scrape(metrics);
    expect(types).toEqual({
      tally_turns_in_flight: 'GAUGE',
      tally_turn_duration_seconds: 'HISTOGRAM',
      tally_turns_total: 'COUNTER',
      tally_kernel_starts_total: 'COUNTER',
      tally_kernel_start_duration_seconds: 'HISTOGRAM',
      tally_cell_duration_seconds: 'HISTOGRAM',
      tally_model_request_duration_seconds: 'HISTOGRAM',
      tally_model_tokens_total: 'COUNTER',
      tally_extraction_rows_total: 'COUNTER',
      tally_errors_total: 'COUNTER',
      tally_kernels: 'GAUGE',
      tally_kernel_start_queue_length: 'GAUGE',
      tally_kernels_parked_total: 'COUNTER',
      tally_refusals_total: 'COUNTER',
      tally_retention_deleted_total: 'COUNTER',
      tally_retention_sweeps_total: 'COUNTER',
      tally_budget_spent_total: 'COUNTER',
    });
    for (const end of ['done', 'failed', 'deferred', 'interrupted']) {
      expect(value(families, 'tally_turns_total', { end })).toBe(0);
      expect(count(families, 'tally_turn_duration_seconds', { end })).toBe(0);
    }
    expect(value(families, 'tally_kernel_starts_total', { result: 'failed' })).toBe(0);
    expect(value(families, 'tally_model_tokens_total', { kind: 'completion' })).toBe(0);
    expect(value(families, 'tally_refusals_total', { reason: 'access policy' })).toBe(0);
    expect(value(families, 'tally_retention_sweeps_total', { result: 'skipped' })).toBe(0);
    expect(value(families, 'tally_budget_spent_total', { resource: 'tokens' })).toBe(0);
    // Node's process metrics keep their standard names, for stock dashboards.
    expect(families.map((f) => f.name)).toContain('process_cpu_seconds_total');
    expect(families.map((f) => f.name)).toContain('nodejs_eventloop_lag_seconds');
  });

  it('counts a turn in flight until it ends, then by how it ended, once', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    const endFirst = metrics.turnStarted();
    const endSecond = metrics.turnStarted();
    expect(value(await scrape(metrics), 'tally_turns_in_flight')).toBe(2);

    endFirst('done');
    endFirst('failed'); // a second call must not count the turn again
    endSecond('interrupted');
    const families = await scrape(metrics);
    expect(value(families, 'tally_turns_in_flight')).toBe(0);
    expect(value(families, 'tally_turns_total', { end: 'done' })).toBe(1);
    expect(value(families, 'tally_turns_total', { end: 'failed' })).toBe(0);
    expect(value(families, 'tally_turns_total', { end: 'interrupted' })).toBe(1);
    expect(count(families, 'tally_turn_duration_seconds', { end: 'done' })).toBe(1);
    expect(count(families, 'tally_turn_duration_seconds', { end: 'failed' })).toBe(0);
  });

  it('moves counters and histograms for kernels, cells, model calls, extractions and errors', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    metrics.kernelStarted(1_500, true);
    metrics.kernelStarted(500, true);
    metrics.kernelStarted(60_000, false);
    metrics.cellRan(250);
    metrics.modelCalled(2_000, { prompt: 100, completion: 20 }, true);
    metrics.modelCalled(3_000, { prompt: 50, completion: 5 }, true);
    metrics.modelCalled(30_000, { prompt: 0, completion: 0 }, false);
    metrics.rowsExtracted(1_000);
    metrics.rowsExtracted(234);
    metrics.errorSeen('STORE_UNAVAILABLE');
    metrics.errorSeen('STORE_UNAVAILABLE');
    metrics.errorSeen('UNEXPECTED');

    const families = await scrape(metrics);
    expect(value(families, 'tally_kernel_starts_total', { result: 'ok' })).toBe(2);
    expect(value(families, 'tally_kernel_starts_total', { result: 'failed' })).toBe(1);
    expect(count(families, 'tally_kernel_start_duration_seconds', { result: 'ok' })).toBe(2);
    expect(sum(families, 'tally_kernel_start_duration_seconds', { result: 'ok' })).toBeCloseTo(2);
    expect(sum(families, 'tally_kernel_start_duration_seconds', { result: 'failed' })).toBeCloseTo(60);
    expect(count(families, 'tally_cell_duration_seconds')).toBe(1);
    expect(sum(families, 'tally_cell_duration_seconds')).toBeCloseTo(0.25);
    expect(bucket(families, 'tally_cell_duration_seconds', '0.1')).toBe(0);
    expect(bucket(families, 'tally_cell_duration_seconds', '0.25')).toBe(1); // observations <= le
    expect(bucket(families, 'tally_cell_duration_seconds', '+Inf')).toBe(1);
    expect(count(families, 'tally_model_request_duration_seconds', { result: 'ok' })).toBe(2);
    expect(sum(families, 'tally_model_request_duration_seconds', { result: 'ok' })).toBeCloseTo(5);
    expect(count(families, 'tally_model_request_duration_seconds', { result: 'failed' })).toBe(1);
    expect(value(families, 'tally_model_tokens_total', { kind: 'prompt' })).toBe(150);
    expect(value(families, 'tally_model_tokens_total', { kind: 'completion' })).toBe(25);
    expect(value(families, 'tally_extraction_rows_total')).toBe(1_234);
    expect(value(families, 'tally_errors_total', { code: 'STORE_UNAVAILABLE' })).toBe(2);
    expect(value(families, 'tally_errors_total', { code: 'UNEXPECTED' })).toBe(1);
  });

  it('drops impossible figures instead of throwing into the caller', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    expect(() => {
      metrics.rowsExtracted(-5);
      metrics.rowsExtracted(Number.NaN);
      metrics.cellRan(Number.POSITIVE_INFINITY);
      metrics.modelCalled(-1, { prompt: -3, completion: Number.NaN }, true);
      metrics.kernelStarted(Number.NaN, true);
    }).not.toThrow();
    const families = await scrape(metrics);
    expect(value(families, 'tally_extraction_rows_total')).toBe(0);
    expect(count(families, 'tally_cell_duration_seconds')).toBe(0);
    expect(value(families, 'tally_model_tokens_total', { kind: 'prompt' })).toBe(0);
    expect(count(families, 'tally_model_request_duration_seconds', { result: 'ok' })).toBe(0);
    // The start itself happened and is counted, even though its duration was unusable.
    expect(value(families, 'tally_kernel_starts_total', { result: 'ok' })).toBe(1);
  });

  it('reads the sandbox figures at scrape time', async () => {
    let current = stats({ live: 3, pooled: 2, starting: 1, waiting: 4, parked: 7 });
    const metrics = new PrometheusMetrics({ sandboxStats: () => current, processMetrics: false });

    let families = await scrape(metrics);
    expect(value(families, 'tally_kernels', { state: 'live' })).toBe(3);
    expect(value(families, 'tally_kernels', { state: 'pooled' })).toBe(2);
    expect(value(families, 'tally_kernels', { state: 'starting' })).toBe(1);
    expect(value(families, 'tally_kernel_start_queue_length')).toBe(4);
    expect(value(families, 'tally_kernels_parked_total')).toBe(7);

    current = stats({ live: 5, pooled: 0, starting: 0, waiting: 0, parked: 9 });
    families = await scrape(metrics);
    expect(value(families, 'tally_kernels', { state: 'live' })).toBe(5);
    expect(value(families, 'tally_kernels', { state: 'pooled' })).toBe(0);
    expect(value(families, 'tally_kernel_start_queue_length')).toBe(0);
    // The sandbox's running total, not the sum of every scrape.
    expect(value(families, 'tally_kernels_parked_total')).toBe(9);
  });

  it('names the container runtime kernels run under, once the sandbox has one', async () => {
    let runtime: string | undefined;
    const metrics = new PrometheusMetrics({ sandboxRuntime: () => runtime, processMetrics: false });
    expect((await scrape(metrics)).find((family) => family.name === 'tally_sandbox_runtime')?.metrics ?? []).toEqual(
      [],
    );
    runtime = 'runsc';
    expect(value(await scrape(metrics), 'tally_sandbox_runtime', { runtime: 'runsc' })).toBe(1);
    runtime = 'runc';
    const families = await scrape(metrics);
    expect(value(families, 'tally_sandbox_runtime', { runtime: 'runc' })).toBe(1);
    expect(samples(families, 'tally_sandbox_runtime')).toHaveLength(1);
  });

  it('leaves the sandbox metrics out when there is no sandbox to read', async () => {
    const names = (await scrape(new PrometheusMetrics({ processMetrics: false }))).map((f) => f.name);
    expect(names).toContain('tally_turns_total');
    expect(names).not.toContain('tally_kernels');
    expect(names).not.toContain('tally_kernel_start_queue_length');
    expect(names).not.toContain('tally_kernels_parked_total');
    expect(names.filter((name) => name.startsWith('process_'))).toEqual([]);
  });

  it('keeps instances apart: each has its own registry and counts', async () => {
    const first = new PrometheusMetrics();
    const second = new PrometheusMetrics({ sandboxStats: () => stats({ live: 1 }) });
    first.errorSeen('LLM_TIMEOUT');
    first.turnStarted()('done');
    second.rowsExtracted(10);

    const [a, b] = await Promise.all([scrape(first), scrape(second)]);
    expect(value(a, 'tally_turns_total', { end: 'done' })).toBe(1);
    expect(value(b, 'tally_turns_total', { end: 'done' })).toBe(0);
    expect(value(a, 'tally_errors_total', { code: 'LLM_TIMEOUT' })).toBe(1);
    expect(samples(b, 'tally_errors_total')).toEqual([]);
    expect(value(a, 'tally_extraction_rows_total')).toBe(0);
    expect(value(b, 'tally_extraction_rows_total')).toBe(10);
    expect(a.map((f) => f.name)).not.toContain('tally_kernels');
    expect(value(b, 'tally_kernels', { state: 'live' })).toBe(1);
  });
});

function stats(overrides: Partial<KernelStats> = {}): KernelStats {
  return { live: 0, pooled: 0, starting: 0, waiting: 0, parked: 0, ...overrides };
}
