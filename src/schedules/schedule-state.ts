/**
 * What the store keeps per schedule, shared by every replica: how far its due times have been
 * handled, its last run (thread and outcome), and the claim that makes each due run happen once.
 * A claim is atomic: under the schedule's lock, a due time is taken only if no replica has taken it
 * (its claim key) and it lies after every due time taken before.
 */
import type { ThreadKey } from '../ports/chat.js';
import type { Store } from '../ports/store.js';

/** How a run ended: its turn(s) done (and, with `auto`, the report exported), waiting for a person, or failed. */
export type RunOutcome = 'finished' | 'waiting' | 'failed';

export interface ScheduleRunRecord {
  /** The due time it ran for (ms); for a run started by hand, when it started. */
  dueAt: number;
  startedAt: number;
  /** TALLY_INSTANCE of the replica that ran it. */
  instance: string;
  /** Started with `tally schedules run`, not by the clock. */
  manual?: boolean;
  threadKey?: ThreadKey;
  outcome?: RunOutcome;
  finishedAt?: number;
}

export interface ScheduleState {
  /** The latest due time a replica claimed, or when tally first saw the schedule (ms since the epoch). */
  handledUpTo: number;
  lastRun?: ScheduleRunRecord;
}

const stateKey = (name: string) => `schedule:${name}`;
// In a Redis Cluster: each schedule's lock, state and claims are keys of their own, spread by the schedule's name.
const claimKey = (name: string, dueAt: number) => `schedule-claim:${name}:${dueAt}`;
const lockName = (name: string) => `schedule:${name}`;
/** Claims outlive any replica's view of the past: a due time is never older than this when it runs. */
const CLAIM_TTL_MS = 8 * 24 * 60 * 60_000;
const LOCK = { ttlMs: 15_000, waitMs: 15_000 };

export class ScheduleStates {
  constructor(
    private readonly store: Store,
    private readonly instance: string,
  ) {}

  read(name: string): Promise<ScheduleState | undefined> {
    return this.store.get<ScheduleState>(stateKey(name));
  }

  /**
   * The due time handled last, for a replica starting up; a schedule seen for the first time counts
   * as handled up to `now`, so a new schedule waits for its next due time instead of running at once.
   */
  handledUpTo(name: string, now: number): Promise<number> {
    return this.store.withLock(
      lockName(name),
      async () => {
        const state = await this.read(name);
        if (state) return state.handledUpTo;
        await this.store.set<ScheduleState>(stateKey(name), { handledUpTo: now });
        return now;
      },
      LOCK,
    );
  }

  /** Takes the run due at `dueAt` for this replica; false when another replica has it, or a later one. */
  claim(name: string, dueAt: number, now: number): Promise<boolean> {
    return this.store.withLock(
      lockName(name),
      async () => {
        const state = await this.read(name);
        if ((await this.store.get(claimKey(name, dueAt))) !== undefined) return false;
        if (state && dueAt <= state.handledUpTo) return false;
        await this.store.set(claimKey(name, dueAt), { instance: this.instance, at: now }, CLAIM_TTL_MS);
        const lastRun: ScheduleRunRecord = { dueAt, startedAt: now, instance: this.instance };
        await this.store.set<ScheduleState>(stateKey(name), { handledUpTo: dueAt, lastRun });
        return true;
      },
      LOCK,
    );
  }

  /** A run started by hand: remembered as the last run, without touching the due times. */
  startManual(name: string, now: number): Promise<void> {
    return this.update(name, (state) => ({
      handledUpTo: state?.handledUpTo ?? now,
      lastRun: { dueAt: now, startedAt: now, instance: this.instance, manual: true },
    }));
  }

  /** Adds what the run learnt (its thread, how it ended) to the last run, if it is still the last. */
  noteRun(name: string, dueAt: number, note: Pick<ScheduleRunRecord, 'threadKey' | 'outcome' | 'finishedAt'>) {
    return this.update(name, (state) =>
      state?.lastRun?.dueAt === dueAt ? { ...state, lastRun: { ...state.lastRun, ...note } } : undefined,
    );
  }

  private update(name: string, change: (state: ScheduleState | undefined) => ScheduleState | undefined) {
    return this.store.withLock(
      lockName(name),
      async () => {
        const next = change(await this.read(name));
        if (next) await this.store.set<ScheduleState>(stateKey(name), next);
      },
      LOCK,
    );
  }
}
