/**
 * The store on a Redis Cluster this file starts on its own ports (three masters, each with a replica): keys spread
 * over the masters with a hash tag per list and lock, so every script touches one slot; messages are written to the
 * inbox while the master of the global inbox list is SIGKILLed, and the writes after it wait for the cluster to
 * promote that master's replica instead of failing. Every acknowledged message is in the inbox afterwards, the
 * audit chain written across the failover verifies, and with no replica left for the new master `durable()` says so
 * once in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inbound } from '../../src/ports/chat.js';
import { Inbox } from '../../src/sessions/inbox.js';
import { createStore, type StoreWithAudit } from '../../src/store/create-store.js';
import { clusterNodeTimeoutMs, warnIfLocksShorterThanFailover } from '../../src/store/failover-time.js';
import { capturedLog } from '../support/captured-log.js';
import { type RedisClusterSet, startRedisCluster } from '../support/redis-processes.js';

const THREADS = 6;
const MESSAGES = 60;
const PREFIX = 'cluster-test';

let cluster: RedisClusterSet;
let store: StoreWithAudit | undefined;
const { logger, logged } = capturedLog();

beforeAll(async () => {
  cluster = await startRedisCluster();
  store = await createStore({
    redisCluster: cluster.settings,
    redisWait: { replicas: 1, timeoutMs: 100 },
    keyPrefix: PREFIX,
    sqlitePath: '/nonexistent',
    logger,
  });
}, 120_000);

afterAll(async () => {
  await store?.close();
  await cluster?.close();
}, 30_000);

const thread = (index: number) => `console:cluster-${index}`;
const inbound = (threadIndex: number, index: number): Inbound => ({
  threadKey: thread(threadIndex),
  user: { id: 'ann' },
  text: `message ${index}`,
  receivedAt: index,
  messageId: `m${index}`,
});

describe('the store on a Redis Cluster', () => {
  it('warns when thread locks would expire before a failover is over, naming TALLY_LOCK_TTL_MS', async () => {
    expect(await clusterNodeTimeoutMs(cluster.settings)).toBe(1000);
    const before = logged.length;
    await warnIfLocksShorterThanFailover({ cluster: cluster.settings }, 20_000, logger);
    expect(logged.length).toBe(before);
    await warnIfLocksShorterThanFailover({ cluster: cluster.settings }, 3_000, logger);
    expect(logged.slice(before).map((line) => line.msg)).toEqual([
      'thread locks (TALLY_LOCK_TTL_MS=3000) can expire during a Redis failover (the cluster waits 1000 ms before it starts one): a thread may then be worked on twice. Set TALLY_LOCK_TTL_MS to at least 11000',
    ]);
    expect(await clusterNodeTimeoutMs({ nodes: [{ host: '127.0.0.1', port: 1 }] })).toBeUndefined();
    logged.length = before;
  });

  it('spreads the lists of threads over the masters, each list with its base in one slot', async () => {
    const live = required(store);
    for (let index = 0; index < THREADS; index += 1) await live.append(`spread:${index}`, { index });
    const owners = new Set<number>();
    for (let index = 0; index < THREADS; index += 1) {
      owners.add((await cluster.masterOf(`${PREFIX}:list:{spread:${index}}`)).port);
      expect(await live.range(`spread:${index}`)).toEqual([{ index }]);
    }
    expect(owners.size).toBeGreaterThan(1);
    expect((await live.keys('spread:')).sort()).toEqual(
      Array.from({ length: THREADS }, (_, index) => `spread:${index}`).sort(),
    );
  });

  it('loses no acknowledged inbox entry when a master is killed; calls wait for the failover', async () => {
    const live = required(store);
    const inbox = new Inbox(live);
    const audit = live.auditLog();
    const globalList = `${PREFIX}:list:{inbox:all}`;
    const doomed = await cluster.masterOf(globalList);
    const acknowledged: string[] = [];
    for (let index = 0; index < MESSAGES; index += 1) {
      if (index === MESSAGES / 3) await doomed.kill(); // the master every new message is appended to
      // No retry here: a call whose master is down waits for the promotion, so none of these fails.
      await inbox.add(inbound(index % THREADS, index), `id-${index}`);
      await audit.append(JSON.stringify({ index }), index);
      acknowledged.push(`id-${index}`);
      if (index === 0) {
        // WAIT returned: the replica of the thread list's master holds it already.
        expect(await cluster.lengthOnReplicas(`${PREFIX}:list:{inbox:${thread(0)}}`)).toContain(1);
      }
    }
    expect((await cluster.masterOf(globalList)).port).not.toBe(doomed.port);

    const kept: string[] = [];
    for (let index = 0; index < THREADS; index += 1) {
      kept.push(...(await live.range<{ id: string }>(`inbox:${thread(index)}`)).map((item) => item.id));
    }
    expect(new Set(kept)).toEqual(new Set(acknowledged));
    expect((await inbox.unfinishedThreads()).sort()).toEqual(
      Array.from({ length: THREADS }, (_, index) => thread(index)).sort(),
    );
    expect(await audit.verify()).toEqual({ ok: true, records: MESSAGES });

    await live.set('after-failover', { ok: true });
    expect(await live.withLock('after', async () => live.get('after-failover'))).toEqual({ ok: true });
    // The promoted replica has no replica of its own: said once, then the writes go on.
    const messages = logged.map((line) => line.msg);
    expect(messages.filter((message) => message.includes('TALLY_REDIS_WAIT_REPLICAS'))).toHaveLength(1);
    expect(messages.filter((message) => message === 'redis cluster master changed (failover)')).toHaveLength(1);
    expect(logged.filter((line) => line.level >= 50)).toEqual([]);
  }, 120_000);
});

function required<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('set up first');
  return value;
}
