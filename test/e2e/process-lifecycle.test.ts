/**
 * tally as an operator runs it (`node src/cli/main.ts slack`, a separate process on a Redis store it
 * shares with its successor), killed while a turn waits on the model, then started again, then
 * stopped with SIGTERM while a turn runs. The Slack stand-in, the scripted model, MariaDB, Redis and
 * the Docker engine are real servers; what the thread shows is read from the stand-in.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEFT_OPEN_TEXT } from '../../adapters/slack/slack-open-streams.js';
import {
  callTool,
  type ScriptedModelServer,
  type ScriptStep,
  say,
  slow,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { containersOf } from '../support/docker.js';
import { heldReply } from '../support/held-reply.js';
import { createRedisTestSpace, type RedisTestSpace } from '../support/redis.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';
import { slackServiceEnv, startTallyProcess, type TallyProcess } from '../support/tally-process.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

const CHANNEL = 'C1ANALYTICS';
const ANN = 'U1ANN';
const LOCK_TTL_MS = 3000;

let environment: TestEnvironment;
let redis: RedisTestSpace;
let slack: SlackStandIn;
let model: ScriptedModelServer;
const children: TallyProcess[] = [];
/** Released when the process is dead: the model's reply it waited on never reaches it. */
const hung = heldReply('this reply goes to a dead process');
const seenAfterRestart: string[] = [];

const script: ScriptStep[] = [
  callTool('triage', { verdict: 'answerable' }),
  callTool('run_python', { code: 'x = 41' }),
  // The first process waits here for the model and is killed meanwhile.
  hung.step,
  // The second process goes on from the saved turn: the first cell's result is in the conversation.
  (context) => {
    seenAfterRestart.push(context.messages.map((message) => String(message.content ?? '')).join('\n'));
    return callTool('run_python', { code: 'print(x + 1)' });
  },
  (context) => say(`The answer is ${context.lastToolResult?.content.match(/\d+/)?.[0]}.`),
  // A turn that takes a while, running when SIGTERM arrives.
  callTool('triage', { verdict: 'answerable' }),
  slow(1500, say('Finished before stopping.')),
];

function start(): TallyProcess {
  const child = startTallyProcess(['slack'], {
    ...environment.env(model.url),
    ...slackServiceEnv(slack, CHANNEL),
    REDIS_URL: redis.url,
    TALLY_REDIS_PREFIX: redis.keyPrefix,
    TALLY_LOCK_TTL_MS: String(LOCK_TTL_MS),
  });
  children.push(child);
  return child;
}

const chatRequests = () => model.requests.filter((request) => request.path.endsWith('/chat/completions'));

const botTexts = (threadTs: string) =>
  slack
    .messages(CHANNEL, threadTs)
    .filter((message) => message.user === slack.ids.botUserId)
    .map((message) => message.text);

beforeAll(async () => {
  environment = await createTestEnvironment('lifecycle');
  redis = await createRedisTestSpace('lifecycle');
  model = await startScriptedModelServer({ script });
  slack = await startSlackStandIn({ channels: [{ id: CHANNEL, name: 'analytics' }] });
}, 180_000);

afterAll(async () => {
  hung.release();
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map((child) => child.exited));
  await slack?.close();
  await model?.close();
  await redis?.cleanup();
  await environment?.close(); // fails if a container of the instance was left behind
}, 120_000);

describe('tally as a process', () => {
  let threadTs = '';

  it('killed while a turn waits on the model: a new process finishes that message, once, and says so', async () => {
    const first = start();
    await slack.connected();
    threadTs = await slack.mention({ user: ANN, channel: CHANNEL, text: 'what is x plus one?' });
    await hung.reached;
    const lockKey = `${redis.keyPrefix}:lock:thread:slack:${slack.ids.teamId}:${CHANNEL}:${threadTs}`;
    expect(await redis.client.exists(lockKey)).toBe(1);
    first.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    // Nobody renews the lock now: it lasts at most its TTL.
    const left = await redis.client.pTTL(lockKey);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(LOCK_TTL_MS);
    hung.release();

    const second = start();
    await slack.waitFor(() => botTexts(threadTs).some((text) => text.startsWith('The answer is')), 90_000);
    const texts = botTexts(threadTs);
    expect(texts.filter((text) => text === 'tally restarted while working on this; continuing.')).toHaveLength(1);
    expect(texts.filter((text) => text.startsWith('The answer is'))).toEqual(['The answer is 42.']);
    expect(texts.join('\n')).not.toContain('dead process');
    // It went on from the saved turn (no second triage: the model was asked to go on with the cell it
    // had run in its history), and the kernel replayed that cell: x is back, so the answer is 42.
    expect(chatRequests()).toHaveLength(5);
    const resumed = JSON.stringify(chatRequests()[3]?.body);
    expect(resumed).toContain('what is x plus one?');
    expect(resumed).toContain('x = 41');
    expect(seenAfterRestart).toHaveLength(1);
    // The dead process's streamed message is not left streaming: the new one stopped it, saying where it went on.
    const streams = slack.streams(CHANNEL, threadTs);
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(streams.map((stream) => stream.state)).toEqual(streams.map(() => 'stopped'));
    expect(JSON.stringify(streams[0]?.chunks.at(-1))).toContain(LEFT_OPEN_TEXT);
    expect(second.output()).not.toMatch(/"level":(50|60)/); // no error logged
  }, 180_000);

  it('on SIGTERM lets the running turn finish, exits 0 and leaves no container', async () => {
    const running = children.at(-1);
    if (!running) throw new Error('no process is running');
    await slack.reply({ user: ANN, channel: CHANNEL, threadTs, text: 'one more thing, please' });
    await slack.waitFor(() => chatRequests().length >= 7, 60_000); // the slow reply is under way
    await sleep(100);
    running.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(botTexts(threadTs)).toContain('Finished before stopping.');
    expect(await containersOf(environment.instance)).toEqual([]);
  }, 120_000);
});
