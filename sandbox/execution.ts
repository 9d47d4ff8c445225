/** Turns the driver's JSON reply into the port's `Execution`. */
import type { DisplayValue, Execution, ExecutionError, Figure } from '../src/ports/sandbox.js';

interface RawFigure {
  png: string;
  width: number;
  height: number;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export function toExecution(reply: Record<string, unknown>, durationMs: number): Execution {
  const execution: Execution = {
    stdout: text(reply.stdout),
    stderr: text(reply.stderr),
    stdoutBytes: number(reply.stdoutBytes),
    stderrBytes: number(reply.stderrBytes),
    figures: Array.isArray(reply.figures) ? (reply.figures as RawFigure[]).map(toFigure) : [],
    durationMs,
    timedOut: false,
  };
  const dropped = number(reply.figuresDropped);
  if (dropped > 0)
    execution.stderr += `\n[tally: ${dropped} figures were not captured (more than 10, or over 8 MiB as PNG)]\n`;
  const reaped = number(reply.reaped);
  if (reaped > 0) execution.stderr += `\n[tally: stopped ${reaped} processes this cell left running]\n`;
  if (reply.result) execution.result = reply.result as DisplayValue;
  if (reply.error) execution.error = reply.error as ExecutionError;
  return execution;
}

function toFigure(raw: RawFigure): Figure {
  return { png: Buffer.from(raw.png, 'base64'), width: raw.width, height: raw.height };
}

/** An execution that produced nothing but an error raised by the host (timeout, death, cancel). */
export function hostFailure(error: ExecutionError, durationMs: number): Execution {
  return { stdout: '', stderr: '', stdoutBytes: 0, stderrBytes: 0, figures: [], error, durationMs, timedOut: false };
}
