/**
 * Schedules in a running chat service: the scheduler's runs wired to the adapter (to open each
 * run's thread), the router (to deliver the request as the owner's message) and the store (claims,
 * last runs, and the session a run waits on). `tally schedules run NAME` uses `runNow`.
 */
import type { Logger } from '../base/logger.js';
import type { AccessControl, UsedGrants } from '../ports/access.js';
import type { ChatAdapter, Inbound, Post, ThreadKey } from '../ports/chat.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { type SessionRecord, sessionKey } from '../sessions/session-record.js';
import type { Schedule } from './schedule-file.js';
import { runSchedule, type ScheduleRunResult, type ScheduleSender } from './schedule-run.js';
import { ScheduleStates } from './schedule-state.js';
import { Scheduler } from './scheduler.js';
import type { ThreadWatch } from './thread-watch.js';

export interface ScheduleServiceOptions {
  /** The schedules whose channel is on this service's platform. */
  schedules: readonly Schedule[];
  adapter: ChatAdapter;
  router: { handle(inbound: Inbound): Promise<void> };
  store: Store;
  /** Sees every post on its way to the adapter (serve-chat.ts feeds it). */
  watch: ThreadWatch;
  clock: Clock;
  /** TALLY_INSTANCE, recorded with each run. */
  instance: string;
  /** The access policy: a run has its owner's permissions, checked again at every run. */
  access?: AccessControl;
  logger: Logger;
}

/** What a schedule's runs have read so far: its owner must still be granted all of it. */
const grantsKey = (name: string) => `schedule-grants:${name}`;

export class ScheduleService {
  readonly states: ScheduleStates;
  private readonly scheduler: Scheduler;
  private readonly manualRuns = new Set<Promise<unknown>>();
  private stopping = false;

  constructor(private readonly options: ScheduleServiceOptions) {
    this.states = new ScheduleStates(options.store, options.instance);
    this.scheduler = new Scheduler({
      schedules: options.schedules,
      states: this.states,
      clock: options.clock,
      run: async (schedule, dueAt) => {
        await this.run(schedule, dueAt);
      },
      logger: options.logger,
    });
  }

  /** Starts the timer loop (and what was missed while tally was down). */
  start(): Promise<void> {
    return this.scheduler.start();
  }

  /** Runs a schedule now, whatever its due times (`tally schedules run NAME`). */
  async runNow(schedule: Schedule): Promise<ScheduleRunResult> {
    const now = this.options.clock.now();
    await this.states.startManual(schedule.name, now);
    const run = this.run(schedule, now);
    this.manualRuns.add(run);
    return run.finally(() => this.manualRuns.delete(run));
  }

  /** Resolves when the runs under way (started by the clock or by hand) have ended. */
  async idle(): Promise<void> {
    await Promise.all([this.scheduler.idle(), ...this.manualRuns]);
  }

  /** No more runs start and `auto` runs send no more decisions; resolves when the runs have ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.scheduler.stop();
    await this.idle();
  }

  private async run(schedule: Schedule, dueAt: number): Promise<ScheduleRunResult> {
    const { adapter, router, store, watch, clock, logger } = this.options;
    const openThread = adapter.openThread?.bind(adapter);
    const sender = await this.sender(schedule);
    const result = await runSchedule(
      schedule,
      {
        sender,
        openThread: (channel, text) => {
          if (!openThread) throw new Error('this chat adapter cannot open threads');
          return openThread(channel, text);
        },
        post: (threadKey: ThreadKey, post: Post) => adapter.post(threadKey, post),
        handle: (inbound) => router.handle(inbound),
        pending: async (threadKey) => (await store.get<SessionRecord>(sessionKey(threadKey)))?.conversation.pending,
        watch: (threadKey, onPost) => watch.watch(threadKey, onPost),
        clock,
        stopping: () => this.stopping,
        logger,
      },
      (threadKey) => this.states.noteRun(schedule.name, dueAt, { threadKey }),
    );
    if (result.threadKey && this.options.access) await this.rememberGrants(schedule, result.threadKey);
    await this.states
      .noteRun(schedule.name, dueAt, { outcome: result.outcome, finishedAt: clock.now() })
      .catch((error: unknown) => logger.warn({ err: error }, 'could not note how a scheduled run ended'));
    logger.info({ schedule: schedule.name, ...result }, 'scheduled run ended');
    return result;
  }

  /** The owner as a run speaks: their groups on the platform, the schedule's channel, and whether they still may. */
  private async sender(schedule: Schedule): Promise<ScheduleSender> {
    const { adapter, access, store } = this.options;
    const channel = schedule.channel.split(':')[2] ?? '';
    const place = { channel, dm: schedule.platform === 'slack' && channel.startsWith('D') };
    const groups = access && adapter.groupsOf ? await adapter.groupsOf(schedule.owner, schedule.channel) : undefined;
    const user = { id: schedule.owner, ...(groups ? { groups } : {}) };
    if (!access) return { user, place };
    const used = await store.get<UsedGrants>(grantsKey(schedule.name));
    const granted = access.forMessage({ threadKey: `${schedule.channel}:schedule`, user, place }, used, async () => {});
    if ('refusal' in granted && granted.missing.length > 0) {
      const why = `the access policy no longer lets its owner read ${granted.missing.join(', ')}, which its runs read.`;
      return { user, place, refusal: why };
    }
    // An owner granted nothing here is not granted the schedule's database either: the note names it.
    const databases = 'refusal' in granted ? [] : granted.databases;
    if (schedule.database && !databases.some((database) => database.name === schedule.database)) {
      return {
        user,
        place,
        refusal: `the access policy does not grant its owner the database ${schedule.database} here.`,
      };
    }
    if ('refusal' in granted) {
      return { user, place, refusal: 'the access policy grants its owner no data where the schedule posts.' };
    }
    return { user, place };
  }

  /** Adds what the run's thread read to what the schedule's runs have read. */
  private async rememberGrants(schedule: Schedule, threadKey: ThreadKey): Promise<void> {
    const { store } = this.options;
    const used = (await store.get<SessionRecord>(sessionKey(threadKey)))?.grantsUsed;
    if (!used) return;
    const before = (await store.get<UsedGrants>(grantsKey(schedule.name))) ?? {};
    for (const [table, columns] of Object.entries(used)) before[table] = { ...before[table], ...columns };
    await store.set(grantsKey(schedule.name), before);
  }
}
