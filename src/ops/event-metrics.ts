/**
 * The `tally_*` counters and histograms that the product's events update (turns, kernel starts, cells,
 * model requests, extractions, errors, refusals, retention sweeps, budget spending): their names, help
 * texts, labels and buckets, registered on one Registry. Each known label value starts at 0, so rate()
 * and alerts see a series before its first event.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { TurnEnd } from '../ports/metrics.js';

/** The metrics `PrometheusMetrics` updates as things happen, one field per metric. */
export interface EventMetrics {
  turnsInFlight: Gauge;
  turnDuration: Histogram<'end'>;
  turns: Counter<'end'>;
  kernelStarts: Counter<'result'>;
  kernelStartDuration: Histogram<'result'>;
  cellDuration: Histogram;
  modelDuration: Histogram<'result'>;
  modelTokens: Counter<'kind'>;
  extractionRows: Counter;
  errors: Counter<'code'>;
  refusals: Counter<'reason'>;
  sweptItems: Counter<'what'>;
  sweeps: Counter<'result'>;
  spending: Counter<'resource'>;
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

/** Registers every event metric on `registry`, with its known series at 0. */
export function createEventMetrics(registry: Registry): EventMetrics {
  const metrics = defineEventMetrics([registry]);
  startKnownSeriesAtZero(metrics);
  return metrics;
}

function defineEventMetrics(registers: Registry[]): EventMetrics {
  return {
    turnsInFlight: new Gauge({
      name: 'tally_turns_in_flight',
      help: 'Turns (inbound messages) being worked on now.',
      registers,
    }),
    turnDuration: new Histogram({
      name: 'tally_turn_duration_seconds',
      help: 'How long turns took, by how they ended.',
      labelNames: ['end'],
      buckets: TURN_BUCKETS,
      registers,
    }),
    turns: new Counter({
      name: 'tally_turns_total',
      help: 'Turns finished, by how they ended.',
      labelNames: ['end'],
      registers,
    }),
    kernelStarts: new Counter({
      name: 'tally_kernel_starts_total',
      help: 'Sandbox kernel starts, by result.',
      labelNames: ['result'],
      registers,
    }),
    // Labelled by result so that failed starts, which often end at a timeout, do not hide how
    // long the successful ones take.
    kernelStartDuration: new Histogram({
      name: 'tally_kernel_start_duration_seconds',
      help: 'How long sandbox kernel starts took, by result.',
      labelNames: ['result'],
      buckets: KERNEL_START_BUCKETS,
      registers,
    }),
    cellDuration: new Histogram({
      name: 'tally_cell_duration_seconds',
      help: 'How long cells ran in kernels.',
      buckets: CELL_BUCKETS,
      registers,
    }),
    modelDuration: new Histogram({
      name: 'tally_model_request_duration_seconds',
      help: 'How long model requests took (retries included), by result.',
      labelNames: ['result'],
      buckets: MODEL_BUCKETS,
      registers,
    }),
    modelTokens: new Counter({
      name: 'tally_model_tokens_total',
      help: 'Tokens used by model requests, by kind (prompt or completion).',
      labelNames: ['kind'],
      registers,
    }),
    extractionRows: new Counter({
      name: 'tally_extraction_rows_total',
      help: 'Rows extracted from databases into kernels.',
      registers,
    }),
    errors: new Counter({
      name: 'tally_errors_total',
      help: 'Infrastructure errors that reached a thread, by error code.',
      labelNames: ['code'],
      registers,
    }),
    refusals: new Counter({
      name: 'tally_refusals_total',
      help: 'Accesses refused (and audited), by reason: access policy, sql guard, budget, file type, file size.',
      labelNames: ['reason'],
      registers,
    }),
    sweptItems: new Counter({
      name: 'tally_retention_deleted_total',
      help: 'What the retention sweep deleted, by kind: threads, audit records, files, inbox entries.',
      labelNames: ['what'],
      registers,
    }),
    sweeps: new Counter({
      name: 'tally_retention_sweeps_total',
      help: 'Retention sweeps, by result: done here, skipped (another replica had it), failed.',
      labelNames: ['result'],
      registers,
    }),
    spending: new Counter({
      name: 'tally_budget_spent_total',
      help: 'What people spent against their daily budgets, by resource: model tokens, kernel seconds.',
      labelNames: ['resource'],
      registers,
    }),
  };
}

function startKnownSeriesAtZero(metrics: EventMetrics): void {
  for (const end of TURN_ENDS) {
    metrics.turns.inc({ end }, 0);
    metrics.turnDuration.zero({ end });
  }
  for (const result of RESULTS) {
    metrics.kernelStarts.inc({ result }, 0);
    metrics.kernelStartDuration.zero({ result });
    metrics.modelDuration.zero({ result });
  }
  metrics.modelTokens.inc({ kind: 'prompt' }, 0);
  metrics.modelTokens.inc({ kind: 'completion' }, 0);
  for (const reason of ['access policy', 'sql guard', 'budget']) metrics.refusals.inc({ reason }, 0);
  for (const result of ['done', 'skipped', 'failed']) metrics.sweeps.inc({ result }, 0);
  for (const resource of ['tokens', 'kernel seconds']) metrics.spending.inc({ resource }, 0);
}
