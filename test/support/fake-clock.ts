/**
 * A clock that moves only when the test says so (`advance`, `set`): timers due on the way fire in
 * order, each seeing the time it was due at, so a schedule due every minute runs without anyone
 * waiting a minute.
 */
import type { Clock } from '../../src/ports/clock.js';

export class FakeClock implements Clock {
  private timers: Array<{ at: number; callback: () => void; id: number }> = [];
  private nextId = 0;

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  setTimer(delayMs: number, callback: () => void): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.current + Math.max(0, delayMs), callback, id });
    return () => {
      this.timers = this.timers.filter((timer) => timer.id !== id);
    };
  }

  /** Moves time on by `ms`, firing the timers due on the way. */
  advance(ms: number): void {
    this.set(this.current + ms);
  }

  /** Moves time to `at` (never back), firing the timers due on the way. */
  set(at: number): void {
    for (;;) {
      const due = this.timers.filter((timer) => timer.at <= at).sort((left, right) => left.at - right.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.current = Math.max(this.current, due.at);
      due.callback();
    }
    this.current = Math.max(this.current, at);
  }

  /** Timers waiting, for assertions. */
  get pending(): number {
    return this.timers.length;
  }
}
