/**
 * Turns the driver's JSON reply into the port's `Execution`. The reply comes from a process that
 * runs user code, so its shape is checked strictly: anything else becomes an error of the cell
 * ('KernelProtocolError'), never an exception on the host.
 */
import { z } from 'zod';
import type { DisplayValue, Execution, ExecutionError, Figure } from '../src/ports/sandbox.js';
import { PROTOCOL_VERSION } from './kernel-channel.js';

const MAX_FIGURES = 10;
const count = z.number().int().nonnegative();

const resultReply = z.strictObject({
  v: z.literal(PROTOCOL_VERSION),
  type: z.literal('result'),
  id: z.string(),
  stdout: z.string().optional(),
  stderr: z.string().optional(),
  stdoutBytes: count.optional(),
  stderrBytes: count.optional(),
  result: z.strictObject({ type: z.string(), text: z.string(), shape: z.array(count).optional() }).optional(),
  figures: z
    .array(
      z.strictObject({
        // base64 inline, or bytes from the reply's attachment (see reply-attachment.ts)
        png: z.union([z.base64(), z.instanceof(Buffer)]),
        width: count,
        height: count,
        title: z.string().max(200).optional(),
        description: z.string().max(500).optional(),
      }),
    )
    .max(MAX_FIGURES)
    .optional(),
  figuresDropped: count.optional(),
  reaped: count.optional(),
  error: z.strictObject({ name: z.string(), value: z.string(), traceback: z.string() }).optional(),
  durationMs: z.number().nonnegative().optional(),
});

export function toExecution(reply: unknown, durationMs: number): Execution {
  const parsed = resultReply.safeParse(reply);
  if (!parsed.success) return hostFailure(protocolError(parsed.error), durationMs);
  const fields = parsed.data;
  const execution: Execution = {
    stdout: fields.stdout ?? '',
    stderr: fields.stderr ?? '',
    stdoutBytes: fields.stdoutBytes ?? 0,
    stderrBytes: fields.stderrBytes ?? 0,
    figures: (fields.figures ?? []).map(toFigure),
    durationMs,
    timedOut: false,
  };
  const dropped = fields.figuresDropped ?? 0;
  if (dropped > 0)
    execution.stderr += `\n[tally: ${dropped} figures were not captured (more than 10, or over 8 MiB as PNG)]\n`;
  const reaped = fields.reaped ?? 0;
  if (reaped > 0) execution.stderr += `\n[tally: stopped ${reaped} processes this cell left running]\n`;
  if (fields.result) execution.result = toDisplayValue(fields.result);
  if (fields.error) execution.error = fields.error;
  return execution;
}

/** True when the reply is a well-formed result that reports no error. */
export function succeeded(reply: unknown): boolean {
  const parsed = resultReply.safeParse(reply);
  return parsed.success && parsed.data.error === undefined;
}

function toDisplayValue(raw: { type: string; text: string; shape?: number[] | undefined }): DisplayValue {
  return raw.shape === undefined
    ? { type: raw.type, text: raw.text }
    : { type: raw.type, text: raw.text, shape: raw.shape };
}

function toFigure(raw: {
  png: string | Buffer;
  width: number;
  height: number;
  title?: string | undefined;
  description?: string | undefined;
}): Figure {
  return {
    png: typeof raw.png === 'string' ? Buffer.from(raw.png, 'base64') : raw.png,
    width: raw.width,
    height: raw.height,
    ...(raw.title ? { title: raw.title } : {}),
    ...(raw.description ? { description: raw.description } : {}),
  };
}

function protocolError(error: z.ZodError): ExecutionError {
  const problems = error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || 'reply'}: ${issue.message}`.slice(0, 200))
    .join('; ');
  return {
    name: 'KernelProtocolError',
    value: `The kernel's reply to this cell was malformed (${problems}), so its outcome is unknown. Code in the cell may have written to the kernel's reply channel.`,
    traceback: '',
  };
}

/** An execution that produced nothing but an error raised by the host (timeout, death, cancel). */
export function hostFailure(error: ExecutionError, durationMs: number): Execution {
  return { stdout: '', stderr: '', stdoutBytes: 0, stderrBytes: 0, figures: [], error, durationMs, timedOut: false };
}
