/**
 * Two replicas of tally on one Redis, each with its own sandbox (instance), the way two pods would
 * run: the messages of one thread arrive alternately at one and the other. Turns must never
 * overlap, and every message must be answered once, in the order it arrived. All of it twice: on a
 * single Redis and on a Redis Cluster of three masters and three replicas this file starts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestOfTurnMessage } from '../../src/agent/turn-message.js';
import { loadConfig } from '../../src/base/config.js';
import { createLogger } from '../../src/base/logger.js';
import {
  callTool,
  type ScriptedModelServer,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import type { Post } from '../../src/ports/chat.js';
import { Inbox } from '../../src/sessions/inbox.js';
import { RESTARTED_TEXT } from '../../src/sessions/message-turn.js';
import { keepSharedFiles } from '../../src/sessions/shared-files.js';
import { createTally, type Tally } from '../../src/wiring/create-tally.js';
import { cleanUp } from '../support/clean-up.js';
import { containersOf } from '../support/docker.js';
import { createRedisTestSpace } from '../support/redis.js';
import { startRedisCluster } from '../support/redis-processes.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

const MESSAGES = 6;
const ONE_BY_ONE = 2;

/** Where the replicas' store is: the variables that point tally at it, and how to remove it. */
interface StoreSite {
  env: Record<string, string>;
  close(): Promise<void>;
}

async function oneRedis(): Promise<StoreSite> {
  const redis = await createRedisTestSpace('replicas');
  return { env: { REDIS_URL: redis.url, TALLY_REDIS_PREFIX: redis.keyPrefix }, close: () => redis.cleanup() };
}

async function redisCluster(): Promise<StoreSite> {
  const cluster = await startRedisCluster();
  const nodes = cluster.settings.nodes.map(({ host, port }) => `${host}:${port}`).join(',');
  return { env: { TALLY_REDIS_CLUSTER: nodes, TALLY_REDIS_PREFIX: 'replicas' }, close: () => cluster.close() };
}

let environment: TestEnvironment;
let site: StoreSite;
let model: ScriptedModelServer;
const replicas: Tally[] = [];
const posts: Array<{ replica: number; threadKey: string; post: Post }> = [];
let inFlight = 0;
let mostInFlight = 0;

/** Each message: triage, then an answer that takes a moment and names the question it answers. */
const script = Array.from({ length: MESSAGES + ONE_BY_ONE + 1 }, () => [
  callTool('triage', { verdict: 'answerable' }),
  async (context: { messages: Array<{ role: string; content?: unknown }> }) => {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await sleep(150);
    inFlight -= 1;
    const asked = context.messages.filter((message) => message.role === 'user').at(-1)?.content;
    return say(`answer to ${requestOfTurnMessage(String(asked))}`);
  },
]).flat();

describe.each([
  { where: 'one Redis', start: oneRedis },
  { where: 'a Redis Cluster', start: redisCluster },
])('two replicas on $where', ({ start }) => {
  beforeAll(async () => {
    environment = await createTestEnvironment('replicas');
    site = await start();
    replicas.length = 0;
    posts.length = 0;
    mostInFlight = 0;
    model = await startScriptedModelServer({ script });
    for (const replica of [0, 1]) {
      const config = loadConfig({
        ...environment.env(model.url),
        TALLY_INSTANCE: `${environment.instance}-${replica}`,
        ...site.env,
      });
      const logger = createLogger({ level: config.logLevel });
      replicas.push(
        await createTally({
          config,
          logger,
          llm: createLlmClient(config.llm, logger),
          post: async (threadKey, post) => {
            posts.push({ replica, threadKey, post });
          },
        }),
      );
    }
  }, 180_000);

  afterAll(async () => {
    await cleanUp(
      ...replicas.map((replica) => () => replica.close()),
      () => model?.close(),
      () => site?.close(),
      async () => {
        const left = [
          ...(await containersOf(`${environment.instance}-0`)),
          ...(await containersOf(`${environment.instance}-1`)),
        ];
        if (left.length > 0) throw new Error(`leaked ${left.length} containers`);
      },
      () => environment?.close(),
    );
  }, 120_000);

  it('take the messages of one thread alternately: no overlap, each answered once, in order', async () => {
    const threadKey = `console:test:${environment.instance}`;
    const handled: Array<Promise<void>> = [];
    for (let index = 0; index < MESSAGES; index += 1) {
      const replica = replicas[index % 2];
      if (!replica) throw new Error('no replica');
      handled.push(
        replica.router.handle({ threadKey, user: { id: 'U1' }, text: `question ${index}`, receivedAt: Date.now() }),
      );
      await sleep(40); // they arrive one after the other, while the first turns still run
    }
    await Promise.all(handled);
    const answers = posts
      .filter((posted) => posted.threadKey === threadKey && posted.post.kind === 'text')
      .map((posted) => (posted.post.kind === 'text' ? posted.post.markdown : ''));
    expect(answers).toEqual(Array.from({ length: MESSAGES }, (_, index) => `answer to question ${index}`));
    expect(mostInFlight).toBe(1);
    expect(posts.filter((posted) => posted.post.kind === 'error')).toEqual([]);
  }, 120_000);

  it("continue each other's threads: each message runs on the replica it reached", async () => {
    const threadKey = `console:test:${environment.instance}:b`;
    for (let index = 0; index < ONE_BY_ONE; index += 1) {
      await replicas[index % 2]?.router.handle({
        threadKey,
        user: { id: 'U1' },
        text: `follow-up ${index}`,
        receivedAt: Date.now(),
      });
    }
    const answeredBy = posts
      .filter((posted) => posted.threadKey === threadKey && posted.post.kind === 'text')
      .map((posted) => [posted.replica, posted.post.kind === 'text' ? posted.post.markdown : '']);
    expect(answeredBy).toEqual([
      [0, 'answer to follow-up 0'],
      [1, 'answer to follow-up 1'],
    ]);
  }, 120_000);

  it('race to recover a message a dead replica left unfinished, and run it once', async () => {
    const threadKey = `console:test:${environment.instance}:c`;
    const store = replicas[0]?.store;
    if (!store) throw new Error('no store');
    // What a replica that died mid-turn leaves: the message written down, its turn begun, never finished.
    const inbox = new Inbox(store);
    await inbox.add({ threadKey, user: { id: 'U1' }, text: 'left behind', receivedAt: Date.now() }, 'dead-1');
    const next = await inbox.next(threadKey);
    if (!next) throw new Error('the message was not written down');
    await inbox.begin(threadKey, next);
    await Promise.all(replicas.map((replica) => replica.router.recover()));
    await Promise.all(replicas.map((replica) => replica.router.idle()));
    const thread = posts.filter((posted) => posted.threadKey === threadKey).map((posted) => posted.post);
    expect(thread).toEqual([
      { kind: 'text', markdown: RESTARTED_TEXT },
      { kind: 'text', markdown: 'answer to left behind' },
    ]);
    expect(await inbox.next(threadKey)).toBeUndefined();
  }, 120_000);

  it('deliver a file shared with a message the other replica received', async () => {
    const threadKey = `console:test:${environment.instance}:d`;
    const store = replicas[0]?.store;
    if (!store) throw new Error('no store');
    // What replica 0 writes down on receipt (the platform's download link lives only in its memory), before it dies.
    const file = { name: 'targets.csv', mime: 'text/csv', sizeBytes: 22 };
    const download = async () => Buffer.from('region,target\nnorth,10\n');
    await keepSharedFiles([{ ...file, download }], { threadKey, messageId: 'shared-1', maxBytes: 1_000_000, store });
    const inbound = { threadKey, user: { id: 'U1' }, text: '', files: [{ ...file, download }], receivedAt: Date.now() };
    await new Inbox(store).add(inbound, 'shared-1');
    await replicas[1]?.router.recover();
    await replicas[1]?.router.idle();
    const thread = posts.filter((posted) => posted.threadKey === threadKey);
    expect(thread.map((posted) => [posted.replica, posted.post])).toEqual([
      [1, { kind: 'text', markdown: 'Got it: /inputs/uploads/targets.csv (CSV, 0.00 MB). Ask me about it.' }],
    ]);
  }, 120_000);
});
