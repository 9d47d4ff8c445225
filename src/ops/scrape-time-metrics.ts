/**
 * The `tally_*` metrics that are not pushed but read at scrape time, so they are exact whenever
 * Prometheus looks: the sandbox's kernels (live, pooled, starting, waiting, parked), its disk quota and
 * container runtime, and the readiness checks of `/readyz`. Each is registered only when its source is
 * given: a metric that cannot be read is left out rather than reported as a misleading 0.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { isAmount } from './is-amount.js';
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

/** Where the scrape-time metrics read their figures; each one left out leaves its metrics out. */
export interface ScrapeTimeSources {
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
}

/** Registers on `registry` the scrape-time metrics whose source is given. */
export function registerScrapeTimeMetrics(registry: Registry, sources: ScrapeTimeSources): void {
  if (sources.sandboxStats) registerSandboxGauges(registry, sources.sandboxStats);
  if (sources.readiness) registerReadinessGauge(registry, sources.readiness);
  if (sources.sandboxDiskQuotaMb) registerDiskQuotaGauge(registry, sources.sandboxDiskQuotaMb);
  if (sources.sandboxRuntime) registerRuntimeGauge(registry, sources.sandboxRuntime);
}

function registerReadinessGauge(registry: Registry, readiness: () => Promise<ReadinessResult>): void {
  new Gauge({
    name: 'tally_readiness_check_ok',
    help: 'Whether each readiness check of /readyz passes now (1) or fails (0), by check: engine, store, database:<name>, model, chat.',
    labelNames: ['check'],
    registers: [registry],
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

function registerRuntimeGauge(registry: Registry, runtime: () => string | undefined): void {
  new Gauge({
    name: 'tally_sandbox_runtime',
    help: 'The container runtime kernels run under (runsc: gVisor, runc: the host kernel), as a label; always 1.',
    labelNames: ['runtime'],
    registers: [registry],
    collect() {
      this.reset();
      const name = runtime();
      if (name !== undefined) this.set({ runtime: name }, 1);
    },
  });
}

function registerDiskQuotaGauge(registry: Registry, diskQuotaMb: () => number | undefined): void {
  new Gauge({
    name: 'tally_sandbox_disk_quota_enforced',
    help: "Whether each session's files live on a filesystem of TALLY_SANDBOX_DISK_MB (1) or on plain folders without a total quota (0).",
    registers: [registry],
    collect() {
      this.set(diskQuotaMb() === undefined ? 0 : 1);
    },
  });
}

function registerSandboxGauges(registry: Registry, sandboxStats: () => KernelStats): void {
  const registers = [registry];
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
