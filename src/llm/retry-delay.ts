/**
 * The wait between two attempts at a model request: what the server asked for in `retry-after-ms` /
 * `Retry-After`, else exponential backoff with jitter, both capped at `maxRetryDelayMs`; and a sleep
 * that ends early, rejecting, when the caller's signal fires.
 */

/** How long to back off between attempts, in milliseconds. */
export interface RetryDelayOptions {
  /** Backoff before the first retry, doubled for each further one (with jitter). */
  retryDelayMs: number;
  /** Longest wait between attempts, also capping what Retry-After asks for. */
  maxRetryDelayMs: number;
}

/** Retry-After when the server gave one, else exponential backoff with jitter; both capped. */
export function delayBeforeRetry(
  attempt: number,
  retryAfterMs: number | undefined,
  options: RetryDelayOptions,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, options.maxRetryDelayMs);
  const backoff = options.retryDelayMs * 2 ** (attempt - 1);
  return Math.round(Math.min(backoff * (0.75 + Math.random() * 0.25), options.maxRetryDelayMs));
}

/** `retry-after-ms` (milliseconds) or `Retry-After` (seconds or an HTTP date), in milliseconds. */
export function retryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `delayMs`; rejects with the signal's reason as soon as it fires. */
export function sleep(delayMs: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
