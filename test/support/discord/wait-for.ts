/**
 * Waiting for the bot: a probe re-checked on every state change (and every 20 ms, for probes that
 * read the test's own variables) until it returns something truthy.
 */
import type { DiscordState } from './discord-state.js';

/** What `waitFor` resolves with: the probe's value once it is truthy. */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

export function waitForProbe<T>(
  state: DiscordState,
  probe: () => T,
  timeoutMs: number,
  describeRecent: () => string[],
): Promise<Truthy<T>> {
  return new Promise((resolve, reject) => {
    let stopListening = (): void => undefined;
    const poll = setInterval(() => check(), 20);
    const timer = setTimeout(() => {
      clearInterval(poll);
      stopListening();
      const recent = describeRecent().join(', ') || 'none';
      reject(new Error(`Discord stand-in: waitFor timed out after ${timeoutMs} ms; last REST calls: ${recent}`));
    }, timeoutMs);
    const check = () => {
      try {
        const value = probe();
        if (!value) return;
        resolve(value as Truthy<T>);
      } catch (error) {
        reject(error);
      }
      clearTimeout(timer);
      clearInterval(poll);
      stopListening();
    };
    stopListening = state.onChange(check);
    check();
  });
}
