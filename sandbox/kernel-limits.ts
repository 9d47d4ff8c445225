/** Numbers the host holds a kernel to, whatever the caller or the kernel asks for. */
import { MAX_TIMEOUT_MS } from '../src/ports/sandbox.js';

/** A duration Node's timers can hold: at least 1 ms, at most MAX_TIMEOUT_MS (longer ones fire at once). */
export function timerMs(ms: number): number {
  return Number.isNaN(ms) ? MAX_TIMEOUT_MS : Math.min(Math.max(ms, 1), MAX_TIMEOUT_MS);
}

/**
 * The longest reply a cell can legitimately produce: four texts capped at the output limit (two
 * streams, the error's value and its traceback), each byte of which may become a six-byte JSON
 * escape, plus figures (at most 10, each at most 8 MiB, base64) and room for the rest.
 */
export function maxReplyBytes(outputLimitBytes: number): number {
  return 4 * 6 * outputLimitBytes + 10 * 12 * 1024 * 1024 + 1024 * 1024;
}
