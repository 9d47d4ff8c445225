/**
 * Admission of kernel starts. Starting a kernel is the expensive moment (a container, an
 * interpreter, pandas imported): on a small machine fifty at once all miss their deadline together.
 * So starts go through one first-come, first-served line: at most `maxConcurrentStarts` run at once,
 * and at most `maxKernels` kernels exist in all (sessions' kernels, the warm pool, starts in
 * progress). At the cap the least recently used idle kernel is parked to make room (its journal
 * replays on its thread's next message); when none is idle the line waits. Background starts (the
 * warm pool) go only when nobody waits, never park anything, and leave a start slot free.
 */

export interface KernelAdmissionOptions {
  /** Starts running at once, at most. */
  maxConcurrentStarts: number;
  /** Kernels in all, at most (counting starts in progress). */
  maxKernels: number;
  /** Kernels that hold a place now (sessions' and the pool's), not counting starts in progress. */
  kernelCount: () => number;
  /** Frees one place by parking the least recently used idle kernel; resolves false when none can be. */
  parkOne: () => Promise<boolean>;
  /** How often a line that waits on kernels becoming idle looks again, in ms. Default 500. */
  recheckMs?: number;
}

/** Gives the start slot back; call it once the kernel counts in `kernelCount` (or failed). Idempotent. */
export type Release = () => void;

export interface AdmitOptions {
  /** Told once, when the caller has to wait, how many callers are ahead of it in line. */
  onQueued?: (ahead: number) => void;
  /** Go to the front of the line (a start that is being retried). */
  front?: boolean;
  signal?: AbortSignal;
}

interface Waiter {
  admit: (release: Release) => void;
  fail: (error: unknown) => void;
}

export class KernelAdmission {
  private readonly line: Waiter[] = [];
  private starting = 0;
  private pumping = false;
  private again = false;
  private recheck: NodeJS.Timeout | undefined;
  private closedWith: Error | undefined;

  constructor(private readonly options: KernelAdmissionOptions) {}

  /** Callers waiting in line. */
  get waiting(): number {
    return this.line.length;
  }

  /** Starts admitted and not yet released. */
  get inProgress(): number {
    return this.starting;
  }

  /** Resolves with a start slot once one is free and the kernel cap allows another kernel. */
  admit(options: AdmitOptions = {}): Promise<Release> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    options.signal?.throwIfAborted();
    if (this.line.length === 0 && this.canStartNow()) return Promise.resolve(this.take());
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        const index = this.line.indexOf(waiter);
        if (index >= 0) this.line.splice(index, 1);
        reject(options.signal?.reason);
      };
      const waiter: Waiter = {
        admit: (release) => {
          options.signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
        fail: (error) => {
          options.signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const ahead = options.front ? 0 : this.line.length;
      if (options.front) this.line.unshift(waiter);
      else this.line.push(waiter);
      options.onQueued?.(ahead);
      this.pump();
    });
  }

  /** A slot for a background start, only when nobody waits and room is left without parking anything. */
  tryAdmitBackground(): Release | undefined {
    if (this.closedWith || this.line.length > 0) return undefined;
    const spareSlots = Math.max(1, this.options.maxConcurrentStarts - 1);
    if (this.starting >= spareSlots || this.total() >= this.options.maxKernels) return undefined;
    return this.take();
  }

  /** Looks at the line again: a kernel was disposed, or went idle. */
  wake(): void {
    if (this.line.length > 0) this.pump();
  }

  /** Rejects every caller still in line; later calls reject at once. Starts in progress go on. */
  close(error: Error): void {
    this.closedWith = error;
    clearTimeout(this.recheck);
    for (const waiter of this.line.splice(0)) waiter.fail(error);
  }

  private total(): number {
    return this.options.kernelCount() + this.starting;
  }

  private canStartNow(): boolean {
    return this.starting < this.options.maxConcurrentStarts && this.total() < this.options.maxKernels;
  }

  private take(): Release {
    this.starting += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.starting -= 1;
      this.pump();
    };
  }

  /** Admits from the head of the line while slots and room allow, parking idle kernels at the cap. */
  private pump(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.drain().finally(() => {
      this.pumping = false;
      if (this.again) {
        this.again = false;
        this.pump();
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.line.length > 0 && this.starting < this.options.maxConcurrentStarts && !this.closedWith) {
      if (this.total() >= this.options.maxKernels) {
        const parked = await this.options.parkOne().catch(() => false);
        if (!parked) {
          this.scheduleRecheck();
          return;
        }
        continue;
      }
      this.line.shift()?.admit(this.take());
    }
  }

  private scheduleRecheck(): void {
    if (this.recheck) return;
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      this.wake();
    }, this.options.recheckMs ?? 500);
    this.recheck.unref();
  }
}
