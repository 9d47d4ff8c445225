/**
 * A replica SIGKILLed and never started again leaves its kernel behind: a living replica on the same Docker engine
 * and store reaps it once the dead one's lease has run out (its container, its workspace's mount and folder). Two
 * `tally slack` processes (separate instances), the Slack stand-in, the scripted model, Redis, MariaDB and the Docker
 * engine are real.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  type ScriptedModelServer,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { containersOf, docker } from '../support/docker.js';
import { createRedisTestSpace, type RedisTestSpace } from '../support/redis.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';
import { slackServiceEnv, startTallyProcess, type TallyProcess } from '../support/tally-process.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

const CHANNEL = 'C1ANALYTICS';
const LEASE_MS = 3000;

let environment: TestEnvironment;
let redis: RedisTestSpace;
let slack: SlackStandIn;
let model: ScriptedModelServer;
const children: TallyProcess[] = [];

const instanceOf = (name: string) => `${environment.instance}-${name}`;

function start(name: string): TallyProcess {
  const child = startTallyProcess(['slack'], {
    ...environment.env(model.url),
    TALLY_INSTANCE: instanceOf(name),
    ...slackServiceEnv(slack, CHANNEL),
    REDIS_URL: redis.url,
    TALLY_REDIS_PREFIX: redis.keyPrefix,
    TALLY_REPLICA_LEASE_MS: String(LEASE_MS),
  });
  children.push(child);
  return child;
}

/** Mount points under a folder, as this process sees them. */
async function mountsUnder(root: string): Promise<string[]> {
  const table = await readFile('/proc/self/mountinfo', 'utf8');
  return table
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((point) => point.startsWith(`${root}/`));
}

beforeAll(async () => {
  environment = await createTestEnvironment('reaping');
  redis = await createRedisTestSpace('reaping');
  model = await startScriptedModelServer({
    script: [callTool('triage', { verdict: 'answerable' }), callTool('run_python', { code: 'x = 41' }), say('Kept x.')],
  });
  slack = await startSlackStandIn({ channels: [{ id: CHANNEL, name: 'analytics' }] });
}, 180_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map((child) => child.exited));
  await slack?.close();
  await model?.close();
  await redis?.cleanup();
  for (const name of ['a', 'b']) {
    for (const container of await containersOf(instanceOf(name))) {
      await docker
        .getContainer(container.Id)
        .remove({ force: true })
        .catch(() => {});
    }
  }
  await environment?.close();
}, 120_000);

describe('a replica that died and did not come back', () => {
  it('has its kernel and workspace reaped by a living replica on the same engine once its lease ran out', async () => {
    const dead = start('a');
    await slack.connected();
    const threadTs = await slack.mention({ user: 'U1ANN', channel: CHANNEL, text: 'keep x for me' });
    await slack.waitFor(() => slack.messages(CHANNEL, threadTs).some((message) => message.text === 'Kept x.'), 120_000);
    expect(await containersOf(instanceOf('a'))).toHaveLength(1);
    const workspaces = join(environment.home, 'workspaces', instanceOf('a'));
    expect(await readdir(workspaces)).not.toEqual([]);
    dead.kill('SIGKILL');
    expect(await dead.exited).toBe('SIGKILL');
    await sleep(500);
    expect(await containersOf(instanceOf('a'))).toHaveLength(1); // nobody else removes it on its own

    const living = start('b');
    const deadline = Date.now() + 90_000;
    // Said once the reaping is over: the container first, then its workspace.
    while (!living.output().includes('a replica stopped renewing its lease')) {
      if (Date.now() > deadline) throw new Error(`the dead replica's kernel was not reaped:\n${living.output()}`);
      await sleep(500);
    }
    expect(await containersOf(instanceOf('a'))).toEqual([]);
    expect(await readdir(workspaces).catch(() => [])).toEqual([]);
    expect(await mountsUnder(workspaces)).toEqual([]);
    expect(await redis.client.exists(`${redis.keyPrefix}:kv:replica:${instanceOf('a')}`)).toBe(0);
    // The living replica keeps its own lease and record.
    expect(await redis.client.exists(`${redis.keyPrefix}:kv:replica:${instanceOf('b')}`)).toBe(1);
    // Stopped once it is up (connected to Slack), as an operator would.
    while (slack.callsTo('apps.connections.open').length < 2) await sleep(200);
    await slack.connected();
    living.kill('SIGTERM');
    expect(await living.exited).toBe(0);
    expect(await redis.client.exists(`${redis.keyPrefix}:kv:replica:${instanceOf('b')}`)).toBe(0);
  }, 300_000);
});
