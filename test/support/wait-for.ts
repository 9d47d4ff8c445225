/**
 * Waiting for the bot in a stand-in: a probe re-checked on every state change (and every 20 ms, for
 * probes that read the test's own variables) until it returns something truthy; on timeout the
 * error lists what the stand-in saw last.
 */

/** What `waitFor` resolves with: the probe's value once it is truthy. */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

export function waitForProbe<T>(
  state: { onChange(listener: () => void): () => void },
  probe: () => T,
  timeoutMs: number,
  /** Names the stand-in and what it saw last, for the timeout's message. */
  describeRecent: () => string,
): Promise<Truthy<T>> {
  return new Promise((resolve, reject) => {
    let stopListening = (): void => undefined;
    const poll = setInterval(() => check(), 20);
    const timer = setTimeout(() => {
      clearInterval(poll);
      stopListening();
      reject(new Error(`waitFor timed out after ${timeoutMs} ms; ${describeRecent()}`));
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
