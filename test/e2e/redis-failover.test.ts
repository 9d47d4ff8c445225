/**
 * Lose a Redis master and lose nothing: two `tally slack` replicas (separate processes) on a store behind Sentinel
 * (a master, a replica and three Sentinels) and on a Redis Cluster (three masters, each with a replica), each
 * started by this file on its own ports; a burst of 20 new threads, and a master SIGKILLed in the middle of it (in
 * the Cluster, the master of the inbox's global list, which every message is appended to). Every message Slack was
 * told was received is answered, once, in its own thread; a schedule due every minute runs once a minute, also
 * across the failover; the audit chain verifies on the new master. The Slack stand-in, the scripted model, MariaDB,
 * the Docker engine and every Redis process are real.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.js';
import {
  type ScriptedModelServer,
  type ScriptStep,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { createStore, type StoreOptions } from '../../src/store/create-store.js';
import { containersOf } from '../support/docker.js';
import { ask, startRedisCluster, startSentinelSet } from '../support/redis-processes.js';
import { writeSchedules } from '../support/scheduled-chat.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';
import { slackServiceEnv, startTallyProcess, type TallyProcess } from '../support/tally-process.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

const CHANNEL = 'C1ANALYTICS';
const ANN = 'U1ANN';
const THREADS = 20;
const KILL_AFTER = 7;
const PREFIX = 'tally-failover';
/** The question a schedule due every minute asks: both replicas run its schedules, each due minute once. */
const SCHEDULED = 99;

/** A Redis deployment that can lose a master: how tally is pointed at it, and what the test asks of it. */
interface Deployment {
  env: Record<string, string>;
  store: Pick<StoreOptions, 'redisSentinel' | 'redisCluster'>;
  /** SIGKILLs the master every new message is written to. */
  killMaster(): Promise<void>;
  /** The length of list `key` held by a replica (the highest, in a Cluster). */
  lengthOnReplica(key: string): Promise<number>;
  /** Whether a replica has taken the killed master's place. */
  failedOver(): Promise<boolean>;
  /** What each tally replica logs when it follows the failover. */
  followed: string;
  close(): Promise<void>;
}

async function behindSentinel(): Promise<Deployment> {
  const set = await startSentinelSet();
  return {
    env: {
      TALLY_REDIS_SENTINELS: set.settings.sentinels.map(({ host, port }) => `${host}:${port}`).join(','),
      TALLY_REDIS_MASTER_NAME: set.settings.masterName,
    },
    store: { redisSentinel: set.settings },
    killMaster: () => set.master.kill(),
    lengthOnReplica: async (key) => Number((await ask(set.replica.port, `LLEN ${key}`)).slice(1)),
    failedOver: async () => (await set.masterPort()) === set.replica.port,
    followed: 'redis master changed (Sentinel failover)',
    close: () => set.close(),
  };
}

async function inCluster(): Promise<Deployment> {
  const cluster = await startRedisCluster();
  const globalList = `${PREFIX}:list:{inbox:all}`;
  const doomed = await cluster.masterOf(globalList);
  return {
    env: { TALLY_REDIS_CLUSTER: cluster.settings.nodes.map(({ host, port }) => `${host}:${port}`).join(',') },
    store: { redisCluster: cluster.settings },
    killMaster: () => doomed.kill(),
    lengthOnReplica: async (key) => Math.max(...(await cluster.lengthOnReplicas(key))),
    failedOver: async () => (await cluster.masterOf(globalList)).port !== doomed.port,
    followed: 'redis cluster master changed (failover)',
    close: () => cluster.close(),
  };
}

/** Any request: the act request answers the question it was asked. */
const answer: ScriptStep = (context) => {
  const asked = context.messages
    .filter((message) => message.role === 'user')
    .map((message) => String(message.content ?? ''))
    .join('\n');
  return say(`answer to ${[...asked.matchAll(/question number (\d+)/g)].at(-1)?.[1] ?? 'nothing'}`);
};

describe.each([
  { where: 'behind Sentinel', start: behindSentinel },
  { where: 'in a Cluster', start: inCluster },
])('two replicas when a Redis master dies, $where', ({ start }) => {
  let environment: TestEnvironment;
  let deployment: Deployment;
  let slack: SlackStandIn;
  let model: ScriptedModelServer;
  const replicas: TallyProcess[] = [];
  const botTexts = (threadTs: string) =>
    slack
      .messages(CHANNEL, threadTs)
      .filter((message) => message.user === slack.ids.botUserId)
      .map((message) => message.text);

  beforeAll(async () => {
    environment = await createTestEnvironment('failover');
    deployment = await start();
    model = await startScriptedModelServer({ script: Array.from({ length: THREADS * 6 + 40 }, () => answer) });
    slack = await startSlackStandIn({ channels: [{ id: CHANNEL, name: 'analytics' }], spread: 'in-turn' });
    const schedules = await writeSchedules(environment.home, [
      {
        name: 'every-minute',
        cron: '* * * * *',
        timezone: 'UTC',
        request: `question number ${SCHEDULED}`,
        channel: `slack:${slack.ids.teamId}:${CHANNEL}`,
        owner: ANN,
        review: 'auto',
      },
    ]);
    for (const replica of [0, 1]) {
      replicas.push(
        startTallyProcess(['slack'], {
          ...environment.env(model.url),
          TALLY_INSTANCE: `${environment.instance}-${replica}`,
          ...slackServiceEnv(slack, CHANNEL),
          ...deployment.env,
          TALLY_REDIS_PREFIX: PREFIX,
          TALLY_SCHEDULES: schedules,
          TALLY_REDIS_WAIT_MS: '300',
        }),
      );
    }
    let exitedEarly: string | undefined;
    for (const replica of replicas) {
      void replica.exited.then((code) => {
        exitedEarly ??= `a replica exited (${code}) at start:\n${replica.output()}`;
      });
    }
    // Each replica opens its Socket Mode connection once it is up.
    while (slack.callsTo('apps.connections.open').length < 2) {
      if (exitedEarly) throw new Error(exitedEarly);
      await sleep(200);
    }
    await slack.connected();
    await sleep(1000); // both greeted
  }, 240_000);

  afterAll(async () => {
    for (const replica of replicas) replica.kill('SIGTERM');
    await Promise.all(replicas.map((replica) => replica.exited));
    await slack?.close();
    await model?.close();
    await deployment?.close();
    for (const replica of [0, 1]) {
      const left = await containersOf(`${environment.instance}-${replica}`);
      if (left.length > 0) throw new Error(`replica ${replica} left ${left.length} containers`);
    }
    await environment?.close();
  }, 180_000);

  it('answers every acknowledged message once after a replica is promoted', async () => {
    const store = await createStore({
      ...deployment.store,
      keyPrefix: PREFIX,
      sqlitePath: '/nonexistent',
      logger: createLogger({ level: 'silent' }),
    });
    try {
      const threads: Array<{ ts: string; question: number }> = [];
      for (let question = 0; question < THREADS; question += 1) {
        if (question === KILL_AFTER) await deployment.killMaster();
        // Resolves once tally acknowledged the event: from then on it must not be lost.
        const ts = await slack.mention({ user: ANN, channel: CHANNEL, text: `question number ${question}` });
        threads.push({ ts, question });
        if (question < KILL_AFTER) {
          // Acknowledged only once written down (and held by the replica: WAIT).
          expect(await store.range(`inbox:slack:${slack.ids.teamId}:${CHANNEL}:${ts}`)).toHaveLength(1);
          const list = `inbox:slack:${slack.ids.teamId}:${CHANNEL}:${ts}`;
          const key = deployment.store.redisCluster ? `${PREFIX}:list:{${list}}` : `${PREFIX}:list:${list}`;
          expect(await deployment.lengthOnReplica(key)).toBe(1);
        }
      }
      await slack.waitFor(
        () => threads.every(({ ts }) => botTexts(ts).some((text) => text.startsWith('answer to'))),
        180_000,
      );
      await sleep(2000); // a second answer would come now
      for (const { ts, question } of threads) {
        expect(botTexts(ts).filter((text) => text.startsWith('answer to'))).toEqual([`answer to ${question}`]);
      }
      expect(await deployment.failedOver()).toBe(true);

      // The schedule: wait for a due minute that starts after the failover, then each minute has one run.
      const failedOverAt = Date.now() / 1000;
      const roots = () =>
        slack
          .messages(CHANNEL)
          .filter((message) => message.thread_ts === undefined && message.text.startsWith('Scheduled:'));
      await slack.waitFor(() => roots().some((root) => Number(root.ts) > Math.ceil(failedOverAt / 60) * 60), 150_000);
      await slack.waitFor(
        () => roots().every((root) => botTexts(root.ts).some((text) => text.startsWith('answer'))),
        60_000,
      );
      await sleep(2000);
      const minutes = roots().map((root) => Math.floor(Number(root.ts) / 60));
      expect(new Set(minutes).size).toBe(minutes.length);
      for (const root of roots()) {
        expect(botTexts(root.ts).filter((text) => text.startsWith('answer to'))).toEqual([`answer to ${SCHEDULED}`]);
      }

      const check = await store.auditLog().verify();
      expect(check).toMatchObject({ ok: true });
      expect(check.records).toBeGreaterThan(THREADS);
      for (const replica of replicas) {
        expect(replica.output()).toContain(deployment.followed);
        expect(replica.output()).not.toMatch(/"level":(50|60)/); // nothing logged as an error
      }
    } finally {
      await store.close();
    }
  }, 420_000);
});
