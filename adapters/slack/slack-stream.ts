/**
 * One streamed Slack message: opened with `chat.startStream` at once (so it takes its place in the
 * thread before anything posted after it), then appended with the chunks that piled up, at most one
 * `chat.appendStream` per `intervalMs` (a timer; everything waiting goes in one call), and stopped
 * with whatever is still waiting (`chat.stopStream`). Calls go out one at a time, in order. When a
 * call fails the stream gives up and hands every chunk not known to be shown to `onFailure`, so the
 * turn's text can be posted another way and is never lost.
 *
 * Why the Web API methods and not the SDK's `ChatStreamer` (`client.chatStream()`): the streamer
 * buffers markdown by size and sends every `chunks` argument at once, so it cannot pace task cards
 * by time, and it only opens the stream at its first flush; tally opens the stream at the first
 * thing a turn shows, chooses the display mode per turn, and decides when to send.
 */
import { callBatches, compactChunks, type StreamChunk } from './slack-stream-chunks.js';

/** The three Web API calls, bound to one channel and thread (see `SlackTurns`). */
export interface StreamCalls {
  /** `chat.startStream` with the first chunks; resolves with the streamed message's ts. */
  start(chunks: StreamChunk[]): Promise<string>;
  append(ts: string, chunks: StreamChunk[]): Promise<void>;
  stop(ts: string, chunks: StreamChunk[]): Promise<void>;
}

export interface StreamFailure {
  error: unknown;
  /** The call that failed. */
  phase: 'start' | 'append' | 'stop';
  /** Chunks of the failed call and every chunk after it, in order. */
  unsent: StreamChunk[];
}

export interface SlackStreamOptions {
  calls: StreamCalls;
  /** Least time between two calls of the stream. Default 400 ms (at most 2.5 appends a second). */
  intervalMs?: number;
  /** Told once, when a call failed; the stream sends nothing after it. */
  onFailure: (failure: StreamFailure) => Promise<void>;
  /** The clock, injectable for tests. Default `Date.now`. */
  now?: () => number;
}

export class SlackStream {
  private pending: StreamChunk[] = [];
  private messageTs: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastCallAt = Number.NEGATIVE_INFINITY;
  private sending: Promise<void> = Promise.resolve();
  private state: 'open' | 'stopped' | 'failed' = 'open';

  constructor(private readonly options: SlackStreamOptions) {}

  /** The streamed message's ts once started. */
  get ts(): string | undefined {
    return this.messageTs;
  }

  get failed(): boolean {
    return this.state === 'failed';
  }

  /** Starts the stream with `chunks` now; resolves true when Slack opened it. */
  async open(chunks: StreamChunk[]): Promise<boolean> {
    this.pending.push(...chunks);
    this.sending = this.sending.then(() => this.send(false));
    await this.sending;
    return this.messageTs !== undefined && this.state !== 'failed';
  }

  /** Queues chunks for the next call, which goes out when the interval since the last one has passed. */
  push(chunks: StreamChunk[]): void {
    if (chunks.length === 0 || this.state !== 'open') return;
    this.pending.push(...chunks);
    if (this.timer) return;
    const now = this.options.now ?? Date.now;
    const wait = Math.max(0, this.lastCallAt + (this.options.intervalMs ?? 400) - now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sending = this.sending.then(() => this.send(false));
    }, wait);
  }

  /** Sends what is waiting with `chat.stopStream`; resolves when the stream is stopped (or failed). */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.state !== 'open') return this.sending;
    this.sending = this.sending.then(() => this.send(true));
    await this.sending;
  }

  /** Resolves when the calls under way are done. */
  idle(): Promise<void> {
    return this.sending;
  }

  private async send(final: boolean): Promise<void> {
    if (this.state !== 'open') return;
    const batches = callBatches(compactChunks(this.pending.splice(0)));
    const now = this.options.now ?? Date.now;
    const { calls } = this.options;
    let phase: StreamFailure['phase'] = 'start';
    let current: StreamChunk[] = [];
    try {
      if (this.messageTs === undefined) {
        current = batches.shift() ?? [];
        this.lastCallAt = now();
        this.messageTs = await calls.start(current);
      }
      phase = 'append';
      while (batches.length > (final ? 1 : 0)) {
        current = batches.shift() ?? [];
        this.lastCallAt = now();
        await calls.append(this.messageTs, current);
      }
      if (final) {
        phase = 'stop';
        current = batches.shift() ?? [];
        this.lastCallAt = now();
        await calls.stop(this.messageTs, current);
        this.state = 'stopped';
      }
    } catch (error) {
      this.state = 'failed';
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      const unsent = [...current, ...batches.flat(), ...this.pending.splice(0)];
      // The handler logs its own trouble; the chain must stay usable for stop() and idle().
      await this.options.onFailure({ error, phase, unsent }).catch(() => undefined);
    }
  }
}
