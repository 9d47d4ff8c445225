/**
 * A turn's progress as plain lines, for output that is not a terminal (pipes, CI, the demo's
 * transcript): the plan once when it appears, a line when the work moves to another plan step, a
 * line when a tool step starts and one when it ends (✓ / ✗ / ↻ with its output and time), and for a
 * long step an occasional line (a new 100k rows or a doubling of the time, never more often than
 * every 5 s). Nothing is printed twice.
 */
import type { ProgressTask, TurnProgress } from '../../src/ports/chat.js';
import { BAR_MIN_ROWS, meterOf, meterText } from './progress-bar.js';
import { doneMark, elapsedOf, formatElapsed, isDone, oneLine } from './progress-format.js';

/** Long-step lines are at least this far apart (ms). */
const METER_EVERY_MS = 5_000;
/** The time between long-step lines doubles up to this (ms). */
const METER_MAX_GAP_MS = 60_000;

interface MeterState {
  /** When the last line for the task was printed. */
  at: number;
  rows: number;
  /** The next elapsed time that earns a line without new rows. */
  nextElapsedMs: number;
  gapMs: number;
}

export class ProgressLog {
  private plan = '';
  private step = -1;
  private readonly planErrors = new Set<number>();
  /** What was printed of each running turn (keys start with the turn's id). */
  private readonly said = new Set<string>();
  private readonly meters = new Map<string, MeterState>();

  /** The lines this picture of the turn adds (called on every post and, between posts, as time passes). */
  lines(progress: TurnProgress, now: number): string[] {
    const { turnId } = progress;
    const lines = [...this.planLines(progress), ...progress.tasks.flatMap((task) => this.taskLines(turnId, task, now))];
    if (progress.state !== 'running') {
      const prefix = `${turnId}:`;
      for (const key of this.said) if (key.startsWith(prefix)) this.said.delete(key);
      for (const key of this.meters.keys()) if (key.startsWith(prefix)) this.meters.delete(key);
    }
    return lines;
  }

  private planLines({ plan }: TurnProgress): string[] {
    if (plan.length === 0) return [];
    const lines: string[] = [];
    // A turn that resumes after a review keeps its plan: shown again only if it changed.
    const titles = plan.map((step) => oneLine(step.title)).join('\n');
    if (titles !== this.plan) {
      this.plan = titles;
      this.step = -1;
      this.planErrors.clear();
      lines.push(['Plan:', ...plan.map((step, index) => `  ${index + 1}. ${oneLine(step.title)}`)].join('\n'));
    }
    const current = plan.findIndex((step) => step.status === 'in_progress');
    if (current >= 0 && current !== this.step && plan.length > 1) {
      this.step = current;
      lines.push(`▸ Step ${current + 1} of ${plan.length}: ${oneLine(plan[current]?.title ?? '')}`);
    }
    plan.forEach((step, index) => {
      if (step.status !== 'error') this.planErrors.delete(index);
      if (step.status !== 'error' || this.planErrors.has(index)) return;
      this.planErrors.add(index);
      lines.push(`✗ Stopped at step ${index + 1} of ${plan.length}: ${oneLine(step.title)}`);
    });
    return lines;
  }

  private taskLines(turnId: string, task: ProgressTask, now: number): string[] {
    const title = oneLine(task.title);
    const key = `${turnId}:${task.id}`;
    if (isDone(task.status)) {
      if (!this.once(`${key}:end`)) return [];
      this.meters.delete(key);
      const output = task.output ? `: ${oneLine(task.output)}` : '';
      const elapsed = elapsedOf(task, now);
      return [`${doneMark(task)} ${title}${output}${elapsed === undefined ? '' : ` (${formatElapsed(elapsed)})`}`];
    }
    if (task.status !== 'in_progress') return [];
    if (this.once(`${key}:start`)) {
      this.meters.set(key, { at: now, rows: 0, nextElapsedMs: METER_EVERY_MS, gapMs: METER_EVERY_MS });
      return [`… ${title}`];
    }
    const meter = meterOf(task, now);
    const state = this.meters.get(key);
    if (!meter || !state || now - state.at < METER_EVERY_MS) return [];
    const rows = meter.received ?? 0;
    if (rows - state.rows < BAR_MIN_ROWS && meter.elapsedMs < state.nextElapsedMs) return [];
    state.at = now;
    state.rows = rows - (rows % BAR_MIN_ROWS);
    while (state.nextElapsedMs <= meter.elapsedMs) {
      state.gapMs = Math.min(state.gapMs * 2, METER_MAX_GAP_MS);
      state.nextElapsedMs += state.gapMs;
    }
    return [`  … ${title}: ${meterText(meter)}`];
  }

  /** True the first time a key is seen. */
  private once(key: string): boolean {
    if (this.said.has(key)) return false;
    this.said.add(key);
    return true;
  }
}
