/**
 * Scheduled analyses on Discord, end to end: the real discord.js client against the Discord
 * stand-in, the real sandbox, MariaDB with telco_db, the scripted model and a fake clock. A schedule
 * that follows a playbook, due Mondays at 09:00 in Berlin, opens a thread from a message in its
 * channel and waits there for the owner's review, which goes on like any thread; a run whose model
 * call fails says so in its thread and exports nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscordAdapter } from '../../adapters/discord/discord-adapter.js';
import { databaseName } from '../../src/base/config.js';
import {
  callTool,
  fail,
  type ScriptedModelServer,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { ACTION_IDS } from '../../src/ports/chat.js';
import type { ChatService } from '../../src/wiring/serve-chat.js';
import { cleanUp } from '../support/clean-up.js';
import type { DiscordMessage } from '../support/discord/discord-model.js';
import { type DiscordStandIn, startDiscordStandIn } from '../support/discord/discord-stand-in.js';
import { FakeClock } from '../support/fake-clock.js';
import { serveScheduledDiscord, writeSchedules } from '../support/scheduled-chat.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

const CHANNEL = '1300000000000000500';
const OWNER = '1300000000000000101';

let environment: TestEnvironment;
let discord: DiscordStandIn;
let model: ScriptedModelServer;
let service: ChatService<DiscordAdapter>;
let clock: FakeClock;
let database = '';

const threadOf = (name: string) =>
  discord.threads().find((thread) => thread.parent_id === CHANNEL && thread.name.startsWith(`Scheduled: ${name}`));
const botMessages = (threadId: string) =>
  discord.messages(threadId).filter((message) => message.author.id === discord.ids.botUserId);
const find = (threadId: string, marker: string) =>
  botMessages(threadId).findLast((message: DiscordMessage) => message.content.includes(marker));
const customId = (message: DiscordMessage | undefined, actionId: string) =>
  (message?.components ?? [])
    .flatMap((row) => (row as { components?: Array<{ custom_id?: string }> }).components ?? [])
    .find((button) => button.custom_id?.startsWith(`${actionId}|`))?.custom_id ?? '';

beforeAll(async () => {
  environment = await createTestEnvironment('scheddiscord');
  database = databaseName(environment.database.url);
  model = await startScriptedModelServer({
    script: [
      callTool('triage', { verdict: 'answerable' }),
      callTool('run_sql', { sql: 'SELECT COUNT(*) AS customers FROM user_payments' }),
      callTool('draft_section', { title: 'Row counts', stage: 'data quality', markdown: 'Counted the rows.' }),
      fail(401, 'Incorrect API key provided (scripted).'),
      say('The audit is in the report.'),
    ],
  });
  discord = await startDiscordStandIn({ channels: [{ id: CHANNEL, name: 'analytics' }] });
  const channel = `discord:${discord.ids.guildId}:${CHANNEL}`;
  const schedulesFile = await writeSchedules(environment.home, [
    {
      name: 'weekly-audit',
      cron: '0 9 * * 1',
      timezone: 'Europe/Berlin',
      playbook: 'table-consistency-audit.md',
      database,
      channel,
      owner: OWNER,
      review: 'review',
    },
    {
      name: 'daily-check',
      cron: '1 8 * * *',
      timezone: 'UTC',
      request: 'Any blanks?',
      channel,
      owner: OWNER,
      review: 'auto',
    },
  ]);
  // Monday 6 January 2025, 08:59:30 in Berlin (CET, UTC+1).
  clock = new FakeClock(Date.parse('2025-01-06T07:59:30Z'));
  service = await serveScheduledDiscord(discord, CHANNEL, { environment, modelUrl: model.url, schedulesFile, clock });
}, 120_000);

afterAll(async () => {
  await cleanUp(
    () => service?.close(),
    () => discord?.close(),
    () => model?.close(),
    () => environment?.close(),
  );
});

describe('scheduled analyses on Discord', () => {
  it('opens a thread from a message in the channel at 09:00 Berlin time and waits for review there', async () => {
    clock.set(Date.parse('2025-01-06T07:59:59Z'));
    await service.schedules?.idle();
    expect(discord.threads()).toHaveLength(0);
    clock.set(Date.parse('2025-01-06T08:00:00Z'));
    await service.schedules?.idle();
    const root = discord.messages(CHANNEL).find((message) => message.content.startsWith('Scheduled: weekly-audit'));
    expect(root?.content).toBe(
      `Scheduled: weekly-audit — Analyse the data as the playbook 'Table consistency audit' (table-consistency-audit.md) says. Use the database ${database}.`,
    );
    const thread = threadOf('weekly-audit');
    expect(thread).toBeDefined();
    expect(find(thread?.id ?? '', 'Review s1 v1')).toBeDefined();
    expect(find(thread?.id ?? '', 'Report exported')).toBeUndefined();
    const state = await service.schedules?.states.read('weekly-audit');
    expect(state?.lastRun).toMatchObject({
      outcome: 'waiting',
      threadKey: `discord:${discord.ids.guildId}:${thread?.id}`,
    });
  });

  it('says in its thread when a run fails, and exports nothing', async () => {
    const callsBefore = discord.calls.length;
    clock.set(Date.parse('2025-01-06T08:01:00Z'));
    await service.schedules?.idle();
    const thread = threadOf('daily-check');
    const threadId = thread?.id ?? '';
    expect(find(threadId, 'refused the credentials')).toBeDefined();
    expect(
      find(threadId, "The scheduled run 'daily-check' stopped on the error above. No report was exported."),
    ).toBeDefined();
    expect((await service.schedules?.states.read('daily-check'))?.lastRun?.outcome).toBe('failed');
    // Nothing was exported: no file reached Discord during the run, in its thread or anywhere else.
    expect(botMessages(threadId).flatMap((message) => message.attachments)).toEqual([]);
    const uploads = discord.calls.slice(callsBefore).filter((call) => (call.files?.length ?? 0) > 0);
    expect(uploads.map((call) => `${call.method} ${call.route}: ${call.files?.map((file) => file.filename)}`)).toEqual(
      [],
    );
  });

  it('lets the owner accept the section in the thread, and the session goes on', async () => {
    const threadId = threadOf('weekly-audit')?.id ?? '';
    const review = find(threadId, 'Review s1 v1');
    await discord.click({
      user: OWNER,
      channel: threadId,
      messageId: review?.id ?? '',
      customId: customId(review, ACTION_IDS.accept),
    });
    await discord.waitFor(() => find(threadId, 'The audit is in the report.'), 60_000);
    expect(find(threadId, "Accepted s1 'Row counts'")).toBeDefined();
  });
});
