/**
 * The timer loop on the embedded store with a fake clock: a schedule due every minute runs at each
 * minute, two schedulers on one store run each due time once, a run missed while tally was down
 * runs once at start-up, and a schedule seen for the first time waits for its next due time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.js';
import type { Store } from '../../src/ports/store.js';
import type { Schedule } from '../../src/schedules/schedule-file.js';
import { ScheduleStates } from '../../src/schedules/schedule-state.js';
import { Scheduler } from '../../src/schedules/scheduler.js';
import { createStore } from '../../src/store/create-store.js';
import { FakeClock } from '../support/fake-clock.js';

const logger = createLogger({ level: 'silent' });
const at = (iso: string) => Date.parse(iso);
const EVERY_MINUTE: Schedule = {
  name: 'minutely',
  cron: '* * * * *',
  timezone: 'UTC',
  request: 'Count the customers.',
  channel: 'slack:T1:C1',
  platform: 'slack',
  owner: 'U1',
  review: 'auto',
};

let folder: string;
let store: Store;
const schedulers: Scheduler[] = [];

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-scheduler-'));
  store = await createStore({ sqlitePath: join(folder, 'state.db'), logger });
});
afterEach(async () => {
  for (const scheduler of schedulers.splice(0)) scheduler.stop();
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

/** A scheduler (replica `instance`) whose runs are written down as `instance@due time`. */
function scheduler(clock: FakeClock, runs: string[], instance = 'a'): Scheduler {
  const created = new Scheduler({
    schedules: [EVERY_MINUTE],
    states: new ScheduleStates(store, instance),
    clock,
    run: async (_schedule, dueAt) => {
      runs.push(`${instance}@${new Date(dueAt).toISOString().slice(11, 16)}`);
    },
    logger,
  });
  schedulers.push(created);
  return created;
}

describe('the scheduler', () => {
  it('runs a schedule due every minute at each minute the clock passes, and none after stop', async () => {
    const clock = new FakeClock(at('2025-01-06T08:59:30Z'));
    const runs: string[] = [];
    const loop = scheduler(clock, runs);
    await loop.start();
    expect(runs).toEqual([]); // first seen at 08:59:30: waits for 09:00
    clock.set(at('2025-01-06T09:00:00Z'));
    await loop.idle();
    clock.advance(2 * 60_000);
    await loop.idle();
    expect(runs).toEqual(['a@09:00', 'a@09:01', 'a@09:02']);
    const state = await new ScheduleStates(store, 'a').read('minutely');
    expect(state?.handledUpTo).toBe(at('2025-01-06T09:02:00Z'));
    expect(state?.lastRun).toMatchObject({ dueAt: at('2025-01-06T09:02:00Z'), instance: 'a' });
    loop.stop();
    expect(clock.pending).toBe(0);
    clock.advance(5 * 60_000);
    await loop.idle();
    expect(runs).toHaveLength(3);
  });

  it('lets two replicas on one store run each due time once', async () => {
    const start = at('2025-01-06T08:59:30Z');
    const clocks = [new FakeClock(start), new FakeClock(start)];
    const runs: string[] = [];
    const loops = [scheduler(clocks[0] as FakeClock, runs, 'a'), scheduler(clocks[1] as FakeClock, runs, 'b')];
    await Promise.all(loops.map((loop) => loop.start()));
    for (const minute of ['09:00', '09:01', '09:02']) {
      for (const clock of clocks) clock.set(at(`2025-01-06T${minute}:00Z`));
      await Promise.all(loops.map((loop) => loop.idle()));
    }
    expect(runs.map((run) => run.slice(2))).toEqual(['09:00', '09:01', '09:02']);
  });

  it('runs a run missed while tally was down once at start-up, then goes on with the clock', async () => {
    const runs: string[] = [];
    const before = new FakeClock(at('2025-01-06T08:59:30Z'));
    const first = scheduler(before, runs);
    await first.start();
    before.set(at('2025-01-06T09:00:00Z'));
    await first.idle();
    first.stop(); // down from 09:00:10 to 09:03:30: 09:01, 09:02 and 09:03 pass
    const after = new FakeClock(at('2025-01-06T09:03:30Z'));
    const second = scheduler(after, runs);
    await second.start();
    await second.idle();
    expect(runs).toEqual(['a@09:00', 'a@09:03']);
    after.set(at('2025-01-06T09:04:00Z'));
    await second.idle();
    expect(runs).toEqual(['a@09:00', 'a@09:03', 'a@09:04']);
  });

  it('does not run twice when a replica starts after another one ran the due time', async () => {
    const runs: string[] = [];
    const clock = new FakeClock(at('2025-01-06T08:59:30Z'));
    const first = scheduler(clock, runs, 'a');
    await first.start();
    clock.set(at('2025-01-06T09:00:00Z'));
    await first.idle();
    const late = scheduler(new FakeClock(at('2025-01-06T09:00:20Z')), runs, 'b');
    await late.start();
    await late.idle();
    expect(runs).toEqual(['a@09:00']);
  });
});
