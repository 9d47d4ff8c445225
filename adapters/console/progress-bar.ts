/**
 * The console's progress meter for long steps: an extraction of more than BAR_MIN_ROWS rows (rows
 * received, of how many when known) and any step running longer than BAR_AFTER_MS (elapsed). On a
 * terminal it is a bar; in plain output the same facts are a short text.
 */
import type { ProgressTask } from '../../src/ports/chat.js';
import { formatCount, formatElapsed } from './progress-format.js';

/** An extraction gets a meter once it has (or expects) more rows than this. */
export const BAR_MIN_ROWS = 100_000;
/** Any other running step gets one after this long (ms). */
export const BAR_AFTER_MS = 3_000;

export interface Meter {
  elapsedMs: number;
  /** Rows received so far, for an extraction. */
  received?: number;
  /** Rows expected, when the extraction knows. */
  expected?: number;
}

/** The meter a running task deserves now, if any. */
export function meterOf(task: ProgressTask, now: number): Meter | undefined {
  if (task.status !== 'in_progress' || task.startedAt === undefined) return undefined;
  const elapsedMs = Math.max(0, now - task.startedAt);
  const rows = task.rows;
  const big = rows !== undefined && Math.max(rows.received, rows.expected ?? 0) > BAR_MIN_ROWS;
  if (!big && elapsedMs <= BAR_AFTER_MS) return undefined;
  return {
    elapsedMs,
    ...(rows ? { received: rows.received } : {}),
    ...(rows?.expected ? { expected: rows.expected } : {}),
  };
}

/** `412,000 of 1,000,000 rows (41%), 6.1s`, `412,000 rows, 6.1s` or `running, 12s`. */
export function meterText(meter: Meter): string {
  const elapsed = formatElapsed(meter.elapsedMs);
  if (meter.received === undefined) return `running, ${elapsed}`;
  if (meter.expected === undefined) return `${formatCount(meter.received)} rows, ${elapsed}`;
  return `${formatCount(meter.received)} of ${formatCount(meter.expected)} rows (${percent(meter)}%), ${elapsed}`;
}

const percent = (meter: Meter) => Math.min(100, Math.floor(((meter.received ?? 0) / (meter.expected ?? 1)) * 100));

/**
 * `[██████░░░░░░░░░░░░░░] 412,000 of 1,000,000 rows (41%), 6.1s`. Without a known total the bar has
 * a block that sweeps to and fro with the elapsed time, so a terminal sees that the step is alive.
 */
export function progressBar(meter: Meter, width = 20): string {
  return `[${barCells(meter, width)}] ${meterText(meter)}`;
}

function barCells(meter: Meter, width: number): string {
  if (meter.received !== undefined && meter.expected !== undefined) {
    const filled = Math.min(width, Math.floor((meter.received / meter.expected) * width));
    return '█'.repeat(filled) + '░'.repeat(width - filled);
  }
  const block = Math.min(4, width);
  const span = width - block;
  const step = Math.floor(meter.elapsedMs / 100) % Math.max(1, span * 2);
  const at = step <= span ? step : span * 2 - step;
  return '░'.repeat(at) + '█'.repeat(block) + '░'.repeat(span - at);
}
