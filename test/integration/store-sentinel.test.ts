/**
 * The store behind Sentinel, with real processes this file starts on its own ports (a master, a replica, three
 * Sentinels): messages are written to the inbox while the master is SIGKILLed; every message whose write returned
 * (what the platform would be told was received) is in the inbox after the failover, read through the new master,
 * and writing goes on there. With no replica left, `durable()` says so once in the log and does not fail. A service
 * warns when its thread locks would expire before a failover is over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inbound } from '../../src/ports/chat.js';
import { Inbox } from '../../src/sessions/inbox.js';
import { createStore, type StoreWithAudit } from '../../src/store/create-store.js';
import { sentinelDownAfterMs, warnIfLocksShorterThanFailover } from '../../src/store/failover-time.js';
import { capturedLog } from '../support/captured-log.js';
import { ask, type SentinelSet, startSentinelSet } from '../support/redis-processes.js';

const THREADS = 4;
const MESSAGES = 60;

let set: SentinelSet;
let store: StoreWithAudit | undefined;
const { logger, logged } = capturedLog();

beforeAll(async () => {
  set = await startSentinelSet();
}, 60_000);

afterAll(async () => {
  await store?.close();
  await set?.close();
}, 30_000);

const inbound = (thread: number, index: number): Inbound => ({
  threadKey: `console:sentinel-${thread}`,
  user: { id: 'ann' },
  text: `message ${index}`,
  receivedAt: index,
  messageId: `m${index}`,
});

describe('the store behind Sentinel', () => {
  it('warns when thread locks would expire before a failover is over, naming TALLY_LOCK_TTL_MS', async () => {
    expect(await sentinelDownAfterMs(set.settings)).toBe(1000);
    const before = logged.length;
    await warnIfLocksShorterThanFailover({ sentinel: set.settings }, 20_000, logger);
    expect(logged.length).toBe(before);
    await warnIfLocksShorterThanFailover({ sentinel: set.settings }, 3_000, logger);
    expect(logged.slice(before).map((line) => line.msg)).toEqual([
      'thread locks (TALLY_LOCK_TTL_MS=3000) can expire during a Redis failover (the Sentinels wait 1000 ms before they start one): a thread may then be worked on twice. Set TALLY_LOCK_TTL_MS to at least 11000',
    ]);
    // No Sentinel answers: nothing to say.
    expect(await sentinelDownAfterMs({ sentinels: [{ host: '127.0.0.1', port: 1 }], masterName: 'x' })).toBeUndefined();
    logged.length = before;
  });

  it('loses no acknowledged inbox entry when the master is killed, and goes on on the new master', async () => {
    store = await createStore({
      redisSentinel: set.settings,
      redisWait: { replicas: 1, timeoutMs: 300 },
      keyPrefix: 'sentinel-test',
      sqlitePath: '/nonexistent',
      logger,
    });
    const inbox = new Inbox(store);
    const acknowledged: string[] = [];
    let killed = false;
    for (let index = 0; index < MESSAGES; index += 1) {
      if (index === MESSAGES / 3) {
        await set.master.kill(); // mid-burst: the writes after it fail until the Sentinels promote the replica
        killed = true;
      }
      const message = inbound(index % THREADS, index);
      // What the router does: a write that fails is not acknowledged; the platform (or the person) sends it again.
      for (;;) {
        const written = await inbox.add(message, `id-${index}`).then(
          () => true,
          () => false,
        );
        if (written) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      acknowledged.push(`id-${index}`);
      if (index === 0) {
        // WAIT returned: the replica holds it already, whatever happens to the master now.
        expect(await ask(set.replica.port, 'LLEN sentinel-test:list:inbox:console:sentinel-0')).toBe(':1\r\n');
      }
    }
    expect(killed).toBe(true);
    expect(await set.masterPort()).toBe(set.replica.port);

    const kept: string[] = [];
    for (let thread = 0; thread < THREADS; thread += 1) {
      const items = await store.range<{ id: string }>(`inbox:console:sentinel-${thread}`);
      kept.push(...items.map((item) => item.id));
    }
    // Every acknowledged message once (a write retried after a lost reply may have landed twice: the id says so).
    expect(new Set(kept)).toEqual(new Set(acknowledged));
    expect((await inbox.unfinishedThreads()).sort()).toEqual(
      Array.from({ length: THREADS }, (_, thread) => `console:sentinel-${thread}`).sort(),
    );

    // Locks and values work on the new master.
    await store.set('after-failover', { ok: true });
    expect(await store.withLock('after', async () => store?.get('after-failover'))).toEqual({ ok: true });
    const messages = logged.map((line) => line.msg);
    expect(messages.filter((message) => message === 'redis master changed (Sentinel failover)')).toHaveLength(1);
    // No replica is left to wait for: said once, then the writes go on.
    const unconfirmed = messages.filter((message) => message.includes('TALLY_REDIS_WAIT_REPLICAS'));
    expect(unconfirmed).toHaveLength(1);
    expect(logged.filter((line) => line.level >= 50)).toEqual([]);
  }, 120_000);
});
