/**
 * Scheduled analyses on Slack, end to end: the real Bolt app against the Slack stand-in, the real
 * sandbox, MariaDB with telco_db, the scripted model, Redis as the store, and a fake clock moved by
 * the test. A schedule due every minute with `review: auto` opens its thread in the channel, its
 * section is accepted and the report exported into the thread; two replicas on one Redis run each
 * due time once; after a downtime the latest missed run runs once at start-up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../adapters/slack/slack-adapter.js';
import {
  callTool,
  type ScriptContext,
  type ScriptStep,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import type { ChatService } from '../../src/wiring/serve-chat.js';
import { cleanUp } from '../support/clean-up.js';
import { FakeClock } from '../support/fake-clock.js';
import { createRedisTestSpace, type RedisTestSpace } from '../support/redis.js';
import { serveScheduledSlack, writeSchedules } from '../support/scheduled-chat.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

const CHANNEL = 'C1ANALYTICS';
const OWNER = 'U1ANN';
const REQUEST = 'How many customers are in user_payments?';
const at = (minute: string) => Date.parse(`2025-01-06T${minute}Z`);

/** Each run: triage, count, draft a section; after the automatic accept, a short answer. */
const RUN: ScriptStep[] = [
  callTool('triage', { verdict: 'answerable' }),
  callTool('run_sql', { sql: 'SELECT COUNT(*) AS customers FROM user_payments' }),
  (context: ScriptContext) =>
    callTool('draft_section', {
      title: 'Customer count',
      stage: 'data overview',
      markdown: `user_payments holds ${context.lastToolResult?.content.split('\n')[1]?.trim()} customers.`,
    }),
  say('The count is in the report.'),
];

let environment: TestEnvironment;
let redis: RedisTestSpace;
let slack: SlackStandIn;
let model: Awaited<ReturnType<typeof startScriptedModelServer>>;
let schedulesFile: string;
const services: Array<ChatService<SlackAdapter>> = [];

/** A replica on the shared Redis, its clock at `start`. */
async function replica(name: string, clock: FakeClock): Promise<ChatService<SlackAdapter>> {
  const service = await serveScheduledSlack(slack, CHANNEL, {
    environment,
    modelUrl: model.url,
    schedulesFile,
    clock,
    env: {
      REDIS_URL: redis.url,
      TALLY_REDIS_PREFIX: redis.keyPrefix,
      TALLY_INSTANCE: `${environment.instance}-${name}`,
    },
  });
  services.push(service);
  return service;
}

/** Root messages of scheduled runs in the channel, oldest first. */
const roots = () =>
  slack.messages(CHANNEL).filter((message) => message.thread_ts === undefined && message.text.startsWith('Scheduled:'));
const threadTexts = (ts: string) => slack.messages(CHANNEL, ts).map((message) => message.text);

beforeAll(async () => {
  environment = await createTestEnvironment('schedules');
  redis = await createRedisTestSpace('schedules');
  model = await startScriptedModelServer({ script: [...RUN, ...RUN, ...RUN] });
  slack = await startSlackStandIn({ channels: [{ id: CHANNEL, name: 'analytics' }] });
  schedulesFile = await writeSchedules(environment.home, [
    {
      name: 'customer-count',
      cron: '* * * * *',
      timezone: 'Europe/Berlin',
      request: REQUEST,
      channel: `slack:${slack.ids.teamId}:${CHANNEL}`,
      owner: OWNER,
      review: 'auto',
    },
    // A channel key naming another workspace: its thread could never be answered, so it is not opened.
    {
      name: 'other-workspace',
      cron: '0 9 * * *',
      timezone: 'UTC',
      request: REQUEST,
      channel: `slack:T9OTHER:${CHANNEL}`,
      owner: OWNER,
    },
  ]);
}, 120_000);

afterAll(async () => {
  await cleanUp(
    ...services.map((service) => () => service.close()),
    () => slack?.close(),
    () => model?.close(),
    () => redis?.cleanup(),
    () => environment?.close(),
  );
});

describe('scheduled analyses on Slack', () => {
  let first: ChatService<SlackAdapter>;
  let firstClock: FakeClock;

  it('posts a schedule due every minute in its own thread, accepts the section and exports the report', async () => {
    firstClock = new FakeClock(at('08:59:30'));
    first = await replica('a', firstClock);
    expect(roots()).toEqual([]); // seen for the first time at 08:59:30: nothing is due yet
    firstClock.set(at('09:00:00'));
    await first.schedules?.idle();
    const [root] = roots();
    expect(root?.text).toBe(`Scheduled: customer-count — ${REQUEST}`);
    const ts = root?.ts ?? '';
    const texts = threadTexts(ts);
    expect(texts.some((text) => text.startsWith('Review ') && text.endsWith('Customer count'))).toBe(true);
    expect(texts.some((text) => text.startsWith("Accepted s1 'Customer count'"))).toBe(true);
    expect(texts.some((text) => text.startsWith('Report exported with 1 accepted section(s)'))).toBe(true);
    const exported = slack.files().filter((file) => file.threadTs === ts && file.name.startsWith('report.'));
    expect(exported.map((file) => file.name).sort()).toEqual(['report.html', 'report.ipynb', 'report.md']);
    expect(exported.find((file) => file.name === 'report.md')?.bytes?.toString()).toContain('customers');
    const state = await first.schedules?.states.read('customer-count');
    expect(state?.lastRun).toMatchObject({
      dueAt: at('09:00:00'),
      outcome: 'finished',
      threadKey: `slack:${slack.ids.teamId}:${CHANNEL}:${ts}`,
    });
    const other = await first.schedules?.states.read('other-workspace');
    expect(other?.lastRun).toMatchObject({ dueAt: at('09:00:00'), outcome: 'failed' });
    expect(other?.lastRun?.threadKey).toBeUndefined();
    expect(roots()).toHaveLength(1);
  });

  it('the run is an ordinary session: the owner is answered in its thread', async () => {
    const ts = roots()[0]?.ts ?? '';
    await slack.reply({ user: OWNER, channel: CHANNEL, threadTs: ts, text: '```python\nprint(6 * 7)\n```' });
    await slack.waitFor(() => threadTexts(ts).some((text) => text.includes('42')), 60_000);
  });

  it('runs each due time once with two replicas on one Redis', async () => {
    const secondClock = new FakeClock(at('09:00:30'));
    const second = await replica('b', secondClock);
    await second.schedules?.idle();
    expect(roots()).toHaveLength(1); // 09:00 ran on the first replica already
    firstClock.set(at('09:01:00'));
    secondClock.set(at('09:01:00'));
    await Promise.all([first.schedules?.idle(), second.schedules?.idle()]);
    expect(roots()).toHaveLength(2);
    const claims = (await redis.keys()).filter((key) => key.includes('schedule-claim:customer-count:'));
    expect(claims).toHaveLength(2);
  });

  it('after a downtime runs the latest missed due time once, at start-up', async () => {
    for (const service of services.splice(0)) await service.close();
    // Down from 09:01 to 09:04:30: 09:02, 09:03 and 09:04 passed; only 09:04 is less than a period late.
    const restarted = await replica('c', new FakeClock(at('09:04:30')));
    await restarted.schedules?.idle();
    expect(roots()).toHaveLength(3);
    const state = await restarted.schedules?.states.read('customer-count');
    expect(state?.lastRun).toMatchObject({ dueAt: at('09:04:00'), outcome: 'finished' });
    const latest = roots()[2]?.ts ?? '';
    expect(threadTexts(latest).some((text) => text.startsWith('Report exported'))).toBe(true);
  });
});
