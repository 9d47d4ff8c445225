/**
 * Ordered delivery per channel: tasks for one channel run one after another, at least
 * `minIntervalMs` apart (chat platforms allow about one message per second per channel), and a task
 * that fails with a transient error is retried with backoff before the next one starts, so nothing
 * is lost or reordered. Channels do not wait for each other.
 */

export interface ChannelQueueOptions {
  /** Pause between two tasks of a channel. Default 1000 ms. */
  minIntervalMs?: number;
  /** Attempts per task for transient errors. Default 4. */
  attempts?: number;
  /** First retry delay, doubled each time. Default 500 ms. */
  retryDelayMs?: number;
  /** Whether an error is worth retrying (a rate limit, a 5xx, a dropped connection). */
  isTransient: (error: unknown) => boolean;
  /** The clock and the wait, injectable for tests. Default `Date.now` and a timer. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export class ChannelQueue {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly lastRunAt = new Map<string, number>();

  constructor(private readonly options: ChannelQueueOptions) {}

  /** Runs `task` after everything queued before it for `channel`; resolves or rejects with it. */
  run<T>(channel: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(channel) ?? Promise.resolve();
    const result = previous.then(() => this.attempt(channel, task));
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(channel, tail);
    void tail.then(() => {
      if (this.tails.get(channel) === tail) this.tails.delete(channel);
    });
    return result;
  }

  /** Resolves when the tasks queued so far for `channel` have settled. */
  async drained(channel: string): Promise<void> {
    await this.tails.get(channel);
  }

  /** Resolves when every queued task has settled. */
  async idle(): Promise<void> {
    await Promise.all(this.tails.values());
  }

  private async attempt<T>(channel: string, task: () => Promise<T>): Promise<T> {
    const { minIntervalMs = 1000, attempts = 4, retryDelayMs = 500, now = Date.now, sleep = delay } = this.options;
    for (let attempt = 1; ; attempt += 1) {
      const wait = (this.lastRunAt.get(channel) ?? Number.NEGATIVE_INFINITY) + minIntervalMs - now();
      if (wait > 0) await sleep(wait);
      this.lastRunAt.set(channel, now());
      try {
        return await task();
      } catch (error) {
        if (attempt >= attempts || !this.options.isTransient(error)) throw error;
        await sleep(retryDelayMs * 2 ** (attempt - 1));
      }
    }
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
