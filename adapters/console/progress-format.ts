/**
 * Small pieces shared by the console's live progress block and its plain-line log: a step's mark
 * (✓ done, ✗ failed, ↻ repaired), elapsed times, row counts, and lines cut to the terminal's width.
 */
import type { ProgressTask, TaskStatus } from '../../src/ports/chat.js';

/** Braille spinner frames, one per 100 ms. */
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The spinner frame for this moment (a function of the clock, so a redraw shows it turning). */
export const spinnerFrame = (now: number): string => SPINNER[Math.floor(now / 100) % SPINNER.length] ?? '⠋';

/** A finished task's mark: ✓, ✗, or ↻ when the step repaired an earlier failure. */
export function doneMark(task: ProgressTask): string {
  if (task.status === 'error') return '✗';
  return task.output === 'repaired' ? '↻' : '✓';
}

export const isDone = (status: TaskStatus): boolean => status === 'complete' || status === 'error';

/** A plan step's mark in the checklist. */
export function planMark(status: TaskStatus): string {
  return { pending: '·', in_progress: '▸', complete: '✓', error: '✗' }[status];
}

/** How long a task ran (finished) or has been running (in progress); undefined before it starts. */
export function elapsedOf(task: ProgressTask, now: number): number | undefined {
  if (task.startedAt === undefined) return undefined;
  return Math.max(0, (task.endedAt ?? now) - task.startedAt);
}

/** `0.4s`, `12s`, `3m05s`, `1h02m`. */
export function formatElapsed(ms: number): string {
  if (ms < 10_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)}s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export const formatCount = (count: number): string => count.toLocaleString('en-US');

const char = String.fromCharCode;
/** Control characters: an escape sequence in a tool's output would move the cursor. */
const CONTROL = new RegExp(`[${char(0)}-${char(31)}${char(127)}]`, 'g');

/** Text from a post made safe for one terminal line: no line breaks, no control characters. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(CONTROL, '').trim();
}

/** Cuts a line to `columns` characters (a wrapped line would break the redraw's line count). */
export function clip(line: string, columns: number): string {
  const characters = Array.from(line);
  return characters.length <= columns ? line : `${characters.slice(0, Math.max(0, columns - 1)).join('')}…`;
}
