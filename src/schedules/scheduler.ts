/**
 * The timer loop: looks at the (injected) clock, claims each schedule's due run in the store and
 * starts it, then sleeps until the next due time (at most a minute, so a clock that jumps is
 * noticed). At start-up it first reads how far each schedule was handled, so a run missed while
 * tally was down starts at once (only the latest one, see `dueToRun`); with several replicas each
 * due run is claimed by one of them.
 */
import type { Logger } from '../base/logger.js';
import type { Clock } from '../ports/clock.js';
import { dueToRun, nextDueTimes } from './due-times.js';
import type { Schedule } from './schedule-file.js';
import type { ScheduleStates } from './schedule-state.js';

export interface SchedulerOptions {
  schedules: readonly Schedule[];
  states: ScheduleStates;
  clock: Clock;
  /** Runs a due run this replica has claimed. */
  run(schedule: Schedule, dueAt: number): Promise<void>;
  logger: Logger;
  /** Longest sleep between two looks at the clock, in ms. Default 60 000. */
  maxWaitMs?: number;
}

export class Scheduler {
  /** Per schedule, the latest due time this replica ran, claimed or let pass. */
  private readonly handled = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private cancelTimer: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly options: SchedulerOptions) {}

  /** Reads each schedule's state, starts what was missed while tally was down, and arms the timer. */
  async start(): Promise<void> {
    const now = this.options.clock.now();
    for (const schedule of this.options.schedules) {
      this.handled.set(schedule.name, await this.options.states.handledUpTo(schedule.name, now));
    }
    this.tick();
  }

  /** No more runs start; runs under way go on (see `idle`). */
  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
  }

  /** Resolves when the runs this scheduler started have ended. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /** Starts what is due now, then sleeps until the next due time. */
  private tick(): void {
    if (this.stopped) return;
    const { clock, schedules } = this.options;
    const now = clock.now();
    let next = now + (this.options.maxWaitMs ?? 60_000);
    for (const schedule of schedules) {
      try {
        const dueAt = dueToRun(schedule, this.handled.get(schedule.name) ?? now, now);
        next = Math.min(next, nextDueTimes(schedule, now, 1)[0] ?? next);
        if (dueAt === undefined) continue;
        this.handled.set(schedule.name, dueAt);
        const run = this.claimAndRun(schedule, dueAt, now);
        this.running.add(run);
        void run.finally(() => this.running.delete(run));
      } catch (error) {
        // One schedule's trouble must not stop the loop for the others.
        this.options.logger.error({ err: error, schedule: schedule.name }, 'could not compute due times');
      }
    }
    this.cancelTimer = clock.setTimer(Math.max(next - now, 0), () => this.tick());
  }

  private async claimAndRun(schedule: Schedule, dueAt: number, now: number): Promise<void> {
    const logger = this.options.logger.child({ schedule: schedule.name, dueAt: new Date(dueAt).toISOString() });
    try {
      if (!(await this.options.states.claim(schedule.name, dueAt, now))) {
        logger.debug('another replica has this run');
        return;
      }
      logger.info({ lateMs: now - dueAt }, 'scheduled run starts');
      await this.options.run(schedule, dueAt);
    } catch (error) {
      logger.error({ err: error }, 'scheduled run could not start');
    }
  }
}
