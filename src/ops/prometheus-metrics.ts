/**
 * The `Metrics` port over `prom-client`, rendered in the Prometheus text format at `GET /metrics`
 * (see `ops-server.ts`). Every metric is named `tally_*`; Node's standard process metrics
 * (`process_*`, `nodejs_*`) keep their usual names so stock Node.js dashboards work unchanged.
 *
 * Each instance owns its own Registry, never prom-client's global one: several tallies (and test
 * files) can live in one process without "metric already registered" errors or mixed counts.
 *
 * Sandbox figures (kernels live, pooled, starting, waiting, parked) are not pushed: they are read
 * from `sandboxStats` at scrape time, so they are exact whenever Prometheus looks.
 *
 * Metrics never throw into the product: a negative or non-finite figure from a caller is dropped
 * rather than failing the turn that reported it.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics, TurnEnd } from '../ports/metrics.js';
import type { ReadinessResult } from './readiness.js';

/**
 * What the sandbox reports about its kernels: the same fields as `SandboxStats` in
 * `sandbox/docker-sandbox.ts`, restated here because `src/` must not import from `sandbox/`.
 */
export interface KernelStats {
  /** Kernels that belong to sessions. */
  live: number;
  /** Ready kernels in the warm pool. */
  pooled: number;
  /** Kernel starts running now. */
  starting: number;
  /** Sessions waiting in line for a start. */
  waiting: number;
  /** Kernels parked to make room since start-up (only ever grows). */
  parked: number;
}

export interface PrometheusMetricsOptions {
  /**
   * Read at every scrape for `tally_kernels`, `tally_kernel_start_queue_length` and
   * `tally_kernels_parked_total` (usually `() => sandbox.stats()`). Without it those metrics are
   * not exported at all, rather than reported as a misleading 0.
   */
  sandboxStats?: () => KernelStats;
  /**
   * Run at every scrape for `tally_readiness_check_ok` (usually the checks of `/readyz`), so that
   * Prometheus sees readiness whether or not anything probes `/readyz`. Without it the metric is
   * not exported.
   */
  readiness?: () => Promise<ReadinessResult>;
  /**
   * Read at every scrape for `tally_sandbox_disk_quota_enforced` (usually `() => sandbox.diskQuotaMb`):
   * each session's disk quota in MiB, or undefined where the host cannot mount one. Without it the
   * metric is not exported.
   */
  sandboxDiskQuotaMb?: () => number | undefined;
  /** Read at every scrape for `tally_sandbox_runtime{runtime}` (usually `() => sandbox.runtime`). */
  sandboxRuntime?: () => string | undefined;
  /** Also export Node's process metrics (CPU, memory, event loop lag, GC). Default true. */
  processMetrics?: boolean;
}

/** The rendered exposition, ready to be sent as an HTTP response. */
export interface MetricsExposition {
  /** The `Content-Type` header value (Prometheus text format 0.0.4). */
  contentType: string;
  body: string;
}

const TURN_ENDS: readonly TurnEnd[] = ['done', 'failed', 'deferred', 'interrupted'];
const RESULTS = ['ok', 'failed'] as const;

// Buckets in seconds, spread over what each operation really takes: turns run from a second to
// many minutes, kernel starts from a warm pool hand-over to a cold image pull, cells from a
// millisecond print to a long model fit.
const TURN_BUCKETS = [0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200];
const KERNEL_START_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];
const CELL_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const MODEL_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300];

export class PrometheusMetrics implements Metrics {
  private readonly registry = new Registry();
  private readonly turnsInFlight: Gauge;
  private readonly turnDuration: Histogram<'end'>;
  private readonly turns: Counter<'end'>;
  private readonly kernelStarts: Counter<'result'>;
  private readonly kernelStartDuration: Histogram<'result'>;
  private readonly cellDuration: Histogram;
  private readonly modelDuration: Histogram<'result'>;
  private readonly modelTokens: Counter<'kind'>;
  private readonly extractionRows: Counter;
  private readonly errors: Counter<'code'>;
  private readonly refusals: Counter<'reason'>;
  private readonly sweptItems: Counter<'what'>;
  private readonly sweeps: Counter<'result'>;
  private readonly spending: Counter<'resource'>;

  constructor(options: PrometheusMetricsOptions = {}) {
    const registers = [this.registry];
    this.turnsInFlight = new Gauge({
      name: 'tally_turns_in_flight',
      help: 'Turns (inbound messages) being worked on now.',
      registers,
    });
    this.turnDuration = new Histogram({
      name: 'tally_turn_duration_seconds',
      help: 'How long turns took, by how they ended.',
      labelNames: ['end'],
      buckets: TURN_BUCKETS,
      registers,
    });
    this.turns = new Counter({
      name: 'tally_turns_total',
      help: 'Turns finished, by how they ended.',
      labelNames: ['end'],
      registers,
    });
    this.kernelStarts = new Counter({
      name: 'tally_kernel_starts_total',
      help: 'Sandbox kernel starts, by result.',
      labelNames: ['result'],
      registers,
    });
    // Labelled by result so that failed starts, which often end at a timeout, do not hide how
    // long the successful ones take.
    this.kernelStartDuration = new Histogram({
      name: 'tally_kernel_start_duration_seconds',
      help: 'How long sandbox kernel starts took, by result.',
      labelNames: ['result'],
      buckets: KERNEL_START_BUCKETS,
      registers,
    });
    this.cellDuration = new Histogram({
      name: 'tally_cell_duration_seconds',
      help: 'How long cells ran in kernels.',
      buckets: CELL_BUCKETS,
      registers,
    });
    this.modelDuration = new Histogram({
      name: 'tally_model_request_duration_seconds',
      help: 'How long model requests took (retries included), by result.',
      labelNames: ['result'],
      buckets: MODEL_BUCKETS,
      registers,
    });
    this.modelTokens = new Counter({
      name: 'tally_model_tokens_total',
      help: 'Tokens used by model requests, by kind (prompt or completion).',
      labelNames: ['kind'],
      registers,
    });
    this.extractionRows = new Counter({
      name: 'tally_extraction_rows_total',
      help: 'Rows extracted from databases into kernels.',
      registers,
    });
    this.errors = new Counter({
      name: 'tally_errors_total',
      help: 'Infrastructure errors that reached a thread, by error code.',
      labelNames: ['code'],
      registers,
    });

    this.refusals = new Counter({
      name: 'tally_refusals_total',
      help: 'Accesses refused (and audited), by reason: access policy, sql guard, budget, file type, file size.',
      labelNames: ['reason'],
      registers,
    });
    this.sweptItems = new Counter({
      name: 'tally_retention_deleted_total',
      help: 'What the retention sweep deleted, by kind: threads, audit records, files, inbox entries.',
      labelNames: ['what'],
      registers,
    });
    this.sweeps = new Counter({
      name: 'tally_retention_sweeps_total',
      help: 'Retention sweeps, by result: done here, skipped (another replica had it), failed.',
      labelNames: ['result'],
      registers,
    });
    this.spending = new Counter({
      name: 'tally_budget_spent_total',
      help: 'What people spent against their daily budgets, by resource: model tokens, kernel seconds.',
      labelNames: ['resource'],
      registers,
    });

    // Known label values start at 0, so rate() and alerts see a series before its first event.
    for (const end of TURN_ENDS) {
      this.turns.inc({ end }, 0);
      this.turnDuration.zero({ end });
    }
    for (const result of RESULTS) {
      this.kernelStarts.inc({ result }, 0);
      this.kernelStartDuration.zero({ result });
      this.modelDuration.zero({ result });
    }
    this.modelTokens.inc({ kind: 'prompt' }, 0);
    this.modelTokens.inc({ kind: 'completion' }, 0);
    for (const reason of ['access policy', 'sql guard', 'budget']) this.refusals.inc({ reason }, 0);
    for (const result of ['done', 'skipped', 'failed']) this.sweeps.inc({ result }, 0);
    for (const resource of ['tokens', 'kernel seconds']) this.spending.inc({ resource }, 0);

    if (options.sandboxStats) this.registerSandboxGauges(options.sandboxStats);
    if (options.readiness) this.registerReadinessGauge(options.readiness);
    if (options.sandboxDiskQuotaMb) this.registerDiskQuotaGauge(options.sandboxDiskQuotaMb);
    if (options.sandboxRuntime) this.registerRuntimeGauge(options.sandboxRuntime);
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  turnStarted(): (end: TurnEnd) => void {
    this.turnsInFlight.inc();
    const stopTimer = this.turnDuration.startTimer();
    let ended = false;
    return (end) => {
      // A second call would count the turn twice and push the in-flight gauge below zero.
      if (ended) return;
      ended = true;
      this.turnsInFlight.dec();
      stopTimer({ end });
      this.turns.inc({ end });
    };
  }

  kernelStarted(durationMs: number, ok: boolean): void {
    const result = ok ? 'ok' : 'failed';
    this.kernelStarts.inc({ result });
    if (isAmount(durationMs)) this.kernelStartDuration.observe({ result }, durationMs / 1000);
  }

  cellRan(durationMs: number): void {
    if (isAmount(durationMs)) this.cellDuration.observe(durationMs / 1000);
  }

  modelCalled(durationMs: number, tokens: { prompt: number; completion: number }, ok: boolean): void {
    if (isAmount(durationMs)) this.modelDuration.observe({ result: ok ? 'ok' : 'failed' }, durationMs / 1000);
    if (isAmount(tokens.prompt)) this.modelTokens.inc({ kind: 'prompt' }, tokens.prompt);
    if (isAmount(tokens.completion)) this.modelTokens.inc({ kind: 'completion' }, tokens.completion);
  }

  rowsExtracted(rows: number): void {
    if (isAmount(rows)) this.extractionRows.inc(rows);
  }

  errorSeen(code: string): void {
    this.errors.inc({ code });
  }

  refused(reason: string): void {
    this.refusals.inc({ reason });
  }

  swept(what: string, count: number): void {
    if (isAmount(count)) this.sweptItems.inc({ what }, count);
  }

  sweepEnded(result: 'done' | 'skipped' | 'failed'): void {
    this.sweeps.inc({ result });
  }

  spent(resource: 'tokens' | 'kernel seconds', amount: number): void {
    if (isAmount(amount)) this.spending.inc({ resource }, amount);
  }

  /** Every metric of this instance in the Prometheus text format; reads `sandboxStats` now. */
  async render(): Promise<MetricsExposition> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private registerReadinessGauge(readiness: () => Promise<ReadinessResult>): void {
    new Gauge({
      name: 'tally_readiness_check_ok',
      help: 'Whether each readiness check of /readyz passes now (1) or fails (0), by check: engine, store, database:<name>, model, chat.',
      labelNames: ['check'],
      registers: [this.registry],
      async collect() {
        let result: ReadinessResult;
        try {
          result = await readiness();
        } catch {
          result = { ready: false, checks: { readiness: { ok: false, ms: 0 } } };
        }
        // Checks come and go with the configuration: only the ones just run are exported.
        this.reset();
        for (const [check, outcome] of Object.entries(result.checks)) this.set({ check }, outcome.ok ? 1 : 0);
      },
    });
  }

  private registerRuntimeGauge(runtime: () => string | undefined): void {
    new Gauge({
      name: 'tally_sandbox_runtime',
      help: 'The container runtime kernels run under (runsc: gVisor, runc: the host kernel), as a label; always 1.',
      labelNames: ['runtime'],
      registers: [this.registry],
      collect() {
        this.reset();
        const name = runtime();
        if (name !== undefined) this.set({ runtime: name }, 1);
      },
    });
  }

  private registerDiskQuotaGauge(diskQuotaMb: () => number | undefined): void {
    new Gauge({
      name: 'tally_sandbox_disk_quota_enforced',
      help: "Whether each session's files live on a filesystem of TALLY_SANDBOX_DISK_MB (1) or on plain folders without a total quota (0).",
      registers: [this.registry],
      collect() {
        this.set(diskQuotaMb() === undefined ? 0 : 1);
      },
    });
  }

  private registerSandboxGauges(sandboxStats: () => KernelStats): void {
    const registers = [this.registry];
    new Gauge({
      name: 'tally_kernels',
      help: 'Sandbox kernels now, by state: live (held by a session), pooled (warm, unused), starting.',
      labelNames: ['state'],
      registers,
      collect() {
        const stats = sandboxStats();
        this.set({ state: 'live' }, stats.live);
        this.set({ state: 'pooled' }, stats.pooled);
        this.set({ state: 'starting' }, stats.starting);
      },
    });
    new Gauge({
      name: 'tally_kernel_start_queue_length',
      help: 'Sessions waiting in line for a kernel start.',
      registers,
      collect() {
        this.set(sandboxStats().waiting);
      },
    });
    // The sandbox keeps the running total itself; a counter that is reset and refilled at each
    // scrape exports it with counter semantics (rate() works) without double counting.
    new Counter({
      name: 'tally_kernels_parked_total',
      help: 'Kernels parked to make room for others since start-up.',
      registers,
      collect() {
        const parked = sandboxStats().parked;
        this.reset();
        if (isAmount(parked)) this.inc(parked);
      },
    });
  }
}

/** A figure a counter or histogram can take: finite and not negative. */
function isAmount(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}
