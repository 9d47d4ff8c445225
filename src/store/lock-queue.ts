/**
 * An in-process FIFO mutex per name. Each Store puts its own callers in line here first, so only the
 * head of the line asks Redis or SQLite for the shared lock and waiters in one process run in the
 * order they arrived.
 */
import { LockTimeoutError } from '../base/errors.js';

interface Waiter {
  wake(): void;
  fail(error: Error): void;
}

/** Frees the name for the next caller in line; calling it again does nothing. */
export type LeaveLine = () => void;

export class LockQueue {
  /** Per name: the caller holding it first, then the callers waiting, in arrival order. */
  private readonly lines = new Map<string, Waiter[]>();

  /**
   * Resolves once `name` is this caller's, with the function that hands it on. Rejects with
   * LockTimeoutError when the caller is still waiting after `waitMs`, and leaves the line then.
   */
  enter(name: string, waitMs: number): Promise<LeaveLine> {
    const line = this.lines.get(name);
    if (line === undefined) {
      const holder: Waiter = { wake() {}, fail() {} };
      this.lines.set(name, [holder]);
      return Promise.resolve(() => this.leave(name, holder));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        wake: () => {
          clearTimeout(timer);
          resolve(() => this.leave(name, waiter));
        },
        fail: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      // A waiter is never at the head while its timer runs: the head is woken, which clears it.
      const timer = setTimeout(() => {
        line.splice(line.indexOf(waiter), 1);
        reject(new LockTimeoutError(name, waitMs, 'another task in this process'));
      }, waitMs);
      line.push(waiter);
    });
  }

  /** Rejects every caller still waiting (the holders keep running); used when the store closes. */
  abandon(error: Error): void {
    for (const line of this.lines.values()) {
      for (const waiter of line.splice(1)) waiter.fail(error);
    }
  }

  private leave(name: string, waiter: Waiter): void {
    const line = this.lines.get(name);
    if (line?.[0] !== waiter) return;
    line.shift();
    const next = line[0];
    if (next === undefined) this.lines.delete(name);
    else next.wake();
  }
}
