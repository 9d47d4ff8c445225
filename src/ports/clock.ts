/**
 * Time for code that waits on the calendar (schedules): injected, so tests move time by hand
 * instead of sleeping until a cron minute comes round.
 */

export interface Clock {
  /** Milliseconds since the epoch, like `Date.now()`. */
  now(): number;
  /** Calls `callback` once `delayMs` have passed on this clock. Returns a function that cancels it. */
  setTimer(delayMs: number, callback: () => void): () => void;
}

/** The real clock. Its timers do not keep the process alive. */
export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimer(delayMs, callback) {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    timer.unref();
    return () => clearTimeout(timer);
  },
};
