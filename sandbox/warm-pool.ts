/**
 * Kernels started ahead of need, so a new thread gets a ready interpreter in milliseconds. The pool
 * keeps at least `minSize` ready and grows with the recent arrival rate of new sessions (enough for
 * about ten seconds of arrivals, at most `maxSize`). It starts kernels only through background
 * admission, so it never takes a start slot or room from a thread that waits.
 */
import type { Logger } from '../src/base/logger.js';
import type { DockerKernel } from './docker-kernel.js';
import type { Release } from './kernel-admission.js';

export interface WarmPoolOptions {
  /** Ready kernels kept at the least (TALLY_SANDBOX_POOL_SIZE). 0 with `maxSize` 0 disables the pool. */
  minSize: number;
  /** Ready kernels kept at the most, however fast sessions arrive (TALLY_SANDBOX_POOL_MAX). */
  maxSize: number;
  create: () => Promise<DockerKernel>;
  /** A slot for a background start, or undefined when a thread waits or no room is left. */
  admit: () => Release | undefined;
  logger: Logger;
}

const ARRIVAL_WINDOW_MS = 60_000;
/** Arrivals per window that one more ready kernel stands for: about ten seconds' worth. */
const ARRIVALS_PER_KERNEL = ARRIVAL_WINDOW_MS / 10_000;

export class WarmPool {
  private readonly ready: DockerKernel[] = [];
  private readonly starting = new Set<Promise<void>>();
  private readonly arrivals: number[] = [];
  private closed = false;

  constructor(private readonly options: WarmPoolOptions) {}

  get available(): number {
    return this.ready.length;
  }

  /** How many ready kernels the pool aims for now. */
  get target(): number {
    this.forgetOldArrivals(Date.now());
    const wanted = Math.ceil(this.arrivals.length / ARRIVALS_PER_KERNEL);
    return Math.max(this.options.minSize, Math.min(this.options.maxSize, wanted));
  }

  /** Counts a new session (it grows the pool when many arrive). */
  noteArrival(now = Date.now()): void {
    this.arrivals.push(now);
    this.forgetOldArrivals(now);
  }

  /** A ready kernel, if any; the pool starts a replacement in the background. */
  take(): DockerKernel | undefined {
    const kernel = this.ready.shift();
    this.fill();
    return kernel;
  }

  /** Starts kernels in the background up to the target, as far as admission allows. */
  fill(): void {
    while (!this.closed && this.ready.length + this.starting.size < this.target) {
      const release = this.options.admit();
      if (!release) return;
      const starting = this.options.create().then(
        async (kernel) => {
          if (this.closed) await kernel.dispose();
          else this.ready.push(kernel);
        },
        (error: unknown) => this.options.logger.error({ err: error }, 'could not start a warm kernel'),
      );
      this.starting.add(starting);
      void starting.finally(() => {
        this.starting.delete(starting);
        release();
      });
    }
  }

  /** Disposes one ready kernel to make room for a thread; false when none is ready. */
  async giveUpOne(): Promise<boolean> {
    const kernel = this.ready.pop();
    if (!kernel) return false;
    await kernel.dispose();
    return true;
  }

  /** Disposes ready kernels beyond the target (arrivals slowed down). */
  async trim(): Promise<number> {
    const extra = this.ready.splice(this.target);
    await Promise.all(extra.map((kernel) => kernel.dispose()));
    return extra.length;
  }

  /** Resolves when every kernel being started has finished starting. */
  async settled(): Promise<void> {
    await Promise.all(this.starting);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    await Promise.all(this.ready.splice(0).map((kernel) => kernel.dispose()));
  }

  private forgetOldArrivals(now: number): void {
    while (this.arrivals.length > 0 && (this.arrivals[0] ?? now) <= now - ARRIVAL_WINDOW_MS) this.arrivals.shift();
  }
}
