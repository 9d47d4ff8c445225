/**
 * Scheduled analyses under the access policy, end to end on Slack: the real Bolt app against the
 * Slack stand-in, the real sandbox, MariaDB with telco_db, the scripted model and the SQLite store.
 * The policy grants the test database to the Slack user group S1ANALYSTS. A run has its owner's
 * permissions, checked again at every run: while Ann is in the group her schedule's report is
 * exported; once she has left it, the next run posts why it did not run and asks the model nothing.
 * A schedule naming a database its owner is not granted does not run either.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../adapters/slack/slack-adapter.js';
import {
  callTool,
  type ScriptContext,
  type ScriptStep,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { loadScheduleFile, type Schedule } from '../../src/schedules/schedule-file.js';
import type { ChatService } from '../../src/wiring/serve-chat.js';
import { cleanUp } from '../support/clean-up.js';
import { FakeClock } from '../support/fake-clock.js';
import { serveScheduledSlack, writeSchedules } from '../support/scheduled-chat.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

const CHANNEL = 'C1ANALYTICS';
const ANALYSTS = 'S1ANALYSTS';
const ANN = 'U1ANN';
const CAROL = 'U3CAROL';
const REQUEST = 'How many customers are in user_payments?';

/** One run that reads: triage, count, draft a section; after the automatic accept, a short answer. */
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
let slack: SlackStandIn;
let model: Awaited<ReturnType<typeof startScriptedModelServer>>;
let service: ChatService<SlackAdapter> | undefined;
let clock: FakeClock;
let schedules: Schedule[];
let database: string;

const scheduleNamed = (name: string): Schedule => {
  const found = schedules.find((schedule) => schedule.name === name);
  if (!found) throw new Error(`no schedule ${name}`);
  return found;
};
/** The ts of a run's thread, from its thread key `slack:<team>:<channel>:<ts>`. */
const threadTs = (threadKey: string | undefined) => threadKey?.split(':')[3] ?? '';
const threadTexts = (ts: string) => slack.messages(CHANNEL, ts).map((message) => message.text);
const filesIn = (ts: string) => slack.files().filter((file) => file.threadTs === ts);
const reportFiles = (ts: string) => filesIn(ts).filter((file) => file.name.startsWith('report.'));

/** Runs the schedule by hand a minute after the last run (no due time of its cron passes). */
async function runNow(name: string) {
  clock.advance(60_000);
  const result = await (service?.schedules ?? fail('the service runs no schedules')).runNow(scheduleNamed(name));
  return { ...result, ts: threadTs(result.threadKey) };
}

function fail(message: string): never {
  throw new Error(message);
}

beforeAll(async () => {
  environment = await createTestEnvironment('schedpolicy');
  database = environment.database.name;
  model = await startScriptedModelServer({ script: RUN });
  slack = await startSlackStandIn({ channels: [{ id: CHANNEL, name: 'analytics' }] });
  slack.setUsergroup(ANALYSTS, [ANN]);
  const policyFile = join(environment.home, 'policy.yaml');
  await writeFile(
    policyFile,
    [
      'principals:',
      '  analysts:',
      `    slack_usergroups: [${ANALYSTS}]`,
      'grants:',
      '  - to: [analysts]',
      `    database: ${JSON.stringify(database)}`,
      '    tables: ["*"]',
      '',
    ].join('\n'),
  );
  const channel = `slack:${slack.ids.teamId}:${CHANNEL}`;
  // Mondays at 09:00 UTC: the clock stays before that, so only the test's runs run.
  const entry = { cron: '0 9 * * 1', timezone: 'UTC', request: REQUEST, channel, review: 'auto' };
  const schedulesFile = await writeSchedules(environment.home, [
    { name: 'customer-count', ...entry, owner: ANN },
    { name: 'carol-count', ...entry, database, owner: CAROL },
  ]);
  clock = new FakeClock(Date.parse('2025-01-06T07:00:00Z'));
  service = await serveScheduledSlack(slack, CHANNEL, {
    environment,
    modelUrl: model.url,
    schedulesFile,
    clock,
    env: { TALLY_POLICY: policyFile },
    // Every run reads the group again, so leaving it counts at once.
    usergroupTtlMs: 1,
  });
  // The entries as the service read them, for runNow.
  schedules = await loadScheduleFile(schedulesFile, { databases: [database], playbooks: [] });
}, 120_000);

afterAll(async () => {
  await cleanUp(
    () => service?.close(),
    () => slack?.close(),
    () => model?.close(),
    () => environment?.close(),
  );
});

describe('scheduled analyses under the access policy on Slack', () => {
  it("runs with its owner's grants while the owner is in the granted user group", async () => {
    const run = await runNow('customer-count');
    expect(run.outcome).toBe('finished');
    const texts = threadTexts(run.ts);
    expect(texts[0]).toBe(`Scheduled: customer-count — ${REQUEST}`);
    expect(texts.some((text) => text.startsWith("Accepted s1 'Customer count'"))).toBe(true);
    expect(texts.some((text) => text.startsWith('Report exported with 1 accepted section(s)'))).toBe(true);
    const exported = reportFiles(run.ts).map((file) => file.name);
    expect(exported.sort()).toEqual(['report.html', 'report.ipynb', 'report.md']);
    expect(
      reportFiles(run.ts)
        .find((file) => file.name === 'report.md')
        ?.bytes?.toString(),
    ).toContain('customers');
    expect(model.chatRequests).toHaveLength(RUN.length);
  });

  it('after the owner leaves the group, the next run says why it did not run and asks the model nothing', async () => {
    const requestsBefore = model.chatRequests.length;
    const lookupsBefore = slack.usergroupCalls(ANALYSTS);
    slack.setUsergroup(ANALYSTS, []);
    const run = await runNow('customer-count');
    expect(run.outcome).toBe('failed');
    expect(slack.usergroupCalls(ANALYSTS)).toBeGreaterThan(lookupsBefore); // the group was read again
    const texts = threadTexts(run.ts);
    expect(texts[0]).toBe(`Scheduled: customer-count — ${REQUEST}`);
    const note = texts.find((text) => text.startsWith("The scheduled run 'customer-count' did not run"));
    expect(note).toContain(`the access policy no longer lets its owner read ${database}.user_payments`);
    expect(note).toContain('No report was made.');
    expect(texts.some((text) => text.startsWith('Review ') || text.startsWith('Accepted '))).toBe(false);
    expect(texts.some((text) => text.startsWith('Report exported'))).toBe(false);
    expect(filesIn(run.ts)).toEqual([]);
    expect(model.chatRequests).toHaveLength(requestsBefore);
    const state = await service?.schedules?.states.read('customer-count');
    expect(state?.lastRun).toMatchObject({
      outcome: 'failed',
      threadKey: `slack:${slack.ids.teamId}:${CHANNEL}:${run.ts}`,
    });
  });

  it('a schedule naming a database its owner is not granted does not run', async () => {
    const requestsBefore = model.chatRequests.length;
    const run = await runNow('carol-count');
    expect(run.outcome).toBe('failed');
    const texts = threadTexts(run.ts);
    expect(texts[0]).toBe(`Scheduled: carol-count — ${REQUEST} Use the database ${database}.`);
    const note = texts.find((text) => text.startsWith("The scheduled run 'carol-count' did not run"));
    expect(note).toContain(`the access policy does not grant its owner the database ${database}`);
    expect(texts.some((text) => text.startsWith('Review ') || text.startsWith('Report exported'))).toBe(false);
    expect(filesIn(run.ts)).toEqual([]);
    expect(model.chatRequests).toHaveLength(requestsBefore);
  });
});
