/**
 * tally on Discord end to end: the real discord.js client against the Discord stand-in, the real
 * sandbox, MariaDB with telco_db and the scripted model. What people in the server would see is read
 * back from the stand-in: messages and attachments in threads, interaction callbacks, ephemerals.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type ScriptContext, say, slow } from '../../src/demo/scripted-model-server.js';
import { ACTION_IDS } from '../../src/ports/chat.js';
import type { DiscordMessage } from '../support/discord/discord-model.js';
import {
  type DiscordTallyFixture,
  OTHER_CHANNEL,
  REVIEWER_ROLE,
  startDiscordTallyFixture,
} from '../support/discord-tally-fixture.js';

const OWNER = '1300000000000000101';
const ANALYST = '1300000000000000104';
const CHART = `import matplotlib.pyplot as plt
plt.bar(["a", "b"], [3, 5]); plt.title("Two bars")
8`;
const last = (context: ScriptContext) => context.lastToolResult?.content ?? '';

let fixture: DiscordTallyFixture;
let threadId = '';
let answer = '';
let edited = '';
/** Set when the slow model answer of the /stop test stops waiting: when tally hung up, or after 60 s. */
let slowAnswerEnded = false;

const bot = () => fixture.discord.ids.botUserId;
const botMessages = () => fixture.discord.messages(threadId).filter((message) => message.author.id === bot());
const find = (marker: string) => botMessages().findLast((message: DiscordMessage) => message.content.includes(marker));
const customId = (message: DiscordMessage | undefined, actionId: string) =>
  (message?.components ?? [])
    .flatMap((row) => (row as { components?: Array<{ custom_id?: string }> }).components ?? [])
    .find((button) => button.custom_id?.startsWith(`${actionId}|`))?.custom_id ?? '';

beforeAll(async () => {
  fixture = await startDiscordTallyFixture([
    callTool('triage', { verdict: 'answerable' }),
    callTool('run_python', { code: CHART }),
    (context) =>
      callTool('draft_section', { title: 'Overview', markdown: `Total ${last(context).split('\n').at(-1)}.` }),
    say('Accepted; the report has one section.'),
    callTool('triage', { verdict: 'answerable' }),
    callTool('run_python', { code: 'x + 1' }),
    (context) => {
      answer = last(context);
      return say(`x + 1 is ${last(context).split('\n').at(-1)}`);
    },
    callTool('triage', { verdict: 'answerable' }),
    slow(60_000, () => {
      slowAnswerEnded = true;
      return say('(too late)');
    }),
    callTool('triage', { verdict: 'answerable' }),
    callTool('run_python', { code: `${'# a long cell\n'.repeat(400)}long = 1` }),
    (context) => {
      edited = last(context);
      return say('Approval done.');
    },
  ]);
  fixture.discord.setRoles(ANALYST, [REVIEWER_ROLE]);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

describe('tally on Discord', () => {
  it('registers its slash commands in the guild', () => {
    const names = fixture.discord
      .commands(fixture.discord.ids.guildId)
      .map((command) => (command as { name: string }).name);
    expect(names.sort()).toEqual(['analyze', 'report', 'reset', 'settings', 'stop']);
  });

  it('defers /analyze at once, opens a thread, and posts a chart and a section for review there', async () => {
    const before = fixture.discord.threads().length;
    const command = await fixture.discord.slashCommand({
      user: OWNER,
      channel: fixture.discord.channelId,
      name: 'analyze',
      options: { question: 'Draw two bars and write it up' },
    });
    threadId = (await fixture.discord.waitFor(() => fixture.discord.threads()[before], 30_000)).id;
    const [first] = fixture.discord.interactionResponses(command.id);
    expect(first).toMatchObject({ kind: 'callback', type: 5, status: 204 });
    await fixture.discord.waitFor(() => find('Review s1 v1'), 60_000);
    const charts = botMessages()
      .flatMap((message) => message.attachments)
      .filter((attachment) => attachment.content_type === 'image/png' || attachment.filename.endsWith('.png'));
    // Once: the review names the chart above instead of posting it again.
    expect(charts.map((chart) => chart.description)).toEqual(["Chart 'Two bars'"]);
    expect(find('Review s1 v1')?.content).toContain("Chart above: 'Two bars'");
    expect(fixture.discord.typing(threadId).length).toBeGreaterThan(0);
    // The turn's progress message ends waiting for the review, showing both steps.
    const progress = await fixture.discord.waitFor(() => find('**Waiting for you**'), 10_000);
    expect(progress.content.split('\n').slice(1)).toEqual([
      '**Steps**',
      '✓ Run Python',
      '✓ Draft section: Overview — waiting for you',
    ]);
  });

  it('lets a member of a reviewer role accept, and goes on', async () => {
    const review = find('Review s1 v1');
    await fixture.discord.click({
      user: ANALYST,
      channel: threadId,
      messageId: review?.id ?? '',
      customId: customId(review, ACTION_IDS.accept),
    });
    await fixture.discord.waitFor(() => find('Accepted; the report has one section.'), 60_000);
    expect(find('Accepted s1')).toBeDefined();
  });

  it('continues the session from a thread reply, through a rate limit, losing nothing', async () => {
    await fixture.discord.message({ user: OWNER, channel: threadId, content: '```python\nx = 41\n```' });
    await fixture.discord.waitFor(() => botMessages().find((message) => message.content.includes('x = 41')), 60_000);
    const callsBefore = fixture.discord.calls.length;
    fixture.discord.failNext('POST /channels/:id/messages', { status: 429, retryAfterSeconds: 1 });
    await fixture.discord.message({ user: OWNER, channel: threadId, content: 'what is x + 1?' });
    await fixture.discord.waitFor(() => find('x + 1 is 42'), 60_000);
    expect(answer).toContain('42');
    expect(botMessages().filter((message) => message.content.includes('x + 1 is 42'))).toHaveLength(1);
    // The post that met the 429 was sent again, unchanged, after the wait, and is in the thread once.
    const posts = fixture.discord.calls
      .slice(callsBefore)
      .filter((call) => call.method === 'POST' && call.route === `/channels/${threadId}/messages`);
    const limited = posts.findIndex((call) => call.status === 429);
    expect(limited).toBeGreaterThanOrEqual(0);
    const retried = posts.slice(limited + 1).find((call) => isDeepStrictEqual(call.body, posts[limited]?.body));
    expect(retried?.status).toBe(200);
    const content = (retried?.body as { content?: string } | undefined)?.content ?? '';
    expect(content).not.toBe('');
    expect(botMessages().filter((message) => message.content === content)).toHaveLength(1);
  });

  it('takes a CSV attached in the thread into the session', async () => {
    await fixture.discord.message({
      user: OWNER,
      channel: threadId,
      content: '',
      attachments: [
        { filename: 'sales.csv', contentType: 'text/csv', content: Buffer.from('region,sales\nnorth,10\n') },
      ],
    });
    const got = await fixture.discord.waitFor(() => find('/inputs/uploads/sales.csv'), 60_000);
    expect(got.content).toContain('Got it');
  });

  it('/report uploads the exports into the thread', async () => {
    await fixture.discord.slashCommand({ user: OWNER, channel: threadId, name: 'report' });
    const html = await fixture.discord.waitFor(
      () =>
        botMessages()
          .flatMap((message) => message.attachments)
          .find((attachment) => attachment.filename === 'report.html'),
      60_000,
    );
    expect(html.bytes.toString()).toContain('Overview');
    await fixture.discord.waitFor(
      () =>
        botMessages()
          .flatMap((message) => message.attachments)
          .find((attachment) => attachment.filename === 'report.ipynb'),
      60_000,
    );
  });

  it('/reset gives the thread a fresh kernel', async () => {
    await fixture.discord.slashCommand({ user: OWNER, channel: threadId, name: 'reset' });
    await fixture.discord.waitFor(() => find('Fresh kernel'), 60_000);
    await fixture.discord.message({ user: OWNER, channel: threadId, content: "```python\n'x' in globals()\n```" });
    const shown = await fixture.discord.waitFor(() => find("'x' in globals()"), 60_000);
    expect(shown.content).toContain('False');
  });

  it('/stop aborts a running turn and keeps the session', async () => {
    await fixture.discord.message({ user: OWNER, channel: threadId, content: "```python\nbefore_stop = 'kept'\n```" });
    await fixture.discord.waitFor(() => find("before_stop = 'kept'"), 60_000);
    await fixture.discord.message({ user: OWNER, channel: threadId, content: 'start something long' });
    await fixture.discord.waitFor(() => fixture.server.chatRequests.length >= 9, 30_000); // the slow model call is under way
    await fixture.discord.slashCommand({ user: OWNER, channel: threadId, name: 'stop' });
    await fixture.discord.waitFor(() => find('Stopped. The session and its variables are kept.'), 30_000);
    // The slow answer ends only when tally hangs up (its 60 s are far off): then it is never sent.
    await fixture.discord.waitFor(() => slowAnswerEnded, 30_000);
    // The same kernel, in the same thread, still has what was set before /stop.
    await fixture.discord.message({ user: OWNER, channel: threadId, content: '```python\nbefore_stop.upper()\n```' });
    const shown = await fixture.discord.waitFor(() => find('before_stop.upper()'), 60_000);
    expect(shown.content).toContain("'KEPT'");
    expect(find('(too late)')).toBeUndefined();
  });

  it('opens a thread for a mention in a channel, like /analyze', async () => {
    const before = fixture.discord.threads().length;
    await fixture.discord.message({
      user: OWNER,
      channel: fixture.discord.channelId,
      content: '```python\n6 * 7\n```',
      mentionsBot: true,
    });
    const thread = await fixture.discord.waitFor(() => fixture.discord.threads()[before], 30_000);
    const shown = await fixture.discord.waitFor(
      () =>
        fixture.discord
          .messages(thread.id)
          .find((message) => message.author.id === bot() && message.content.includes('42')),
      60_000,
    );
    expect(shown.content).toContain('result (int)');
  });

  it("refuses a stranger's button press with a message only they see", async () => {
    const review = botMessages().find((message) => message.content.includes('Review s1 v1'));
    await fixture.discord.click({
      user: '1300000000000000199',
      channel: threadId,
      messageId: review?.id ?? '',
      customId: customId(review, ACTION_IDS.discard),
    });
    const notice = await fixture.discord.waitFor(() => fixture.discord.ephemerals('1300000000000000199')[0], 60_000);
    expect(notice.content).toMatch(/only the person who started this thread/);
  });

  it('refuses a channel that is not allowed, telling only the person', async () => {
    const before = fixture.discord.threads().length;
    await fixture.discord.slashCommand({
      user: OWNER,
      channel: OTHER_CHANNEL,
      name: 'analyze',
      options: { question: 'hello?' },
    });
    const refusal = await fixture.discord.waitFor(
      () => fixture.discord.ephemerals(OWNER).find((message) => message.content.includes('not enabled here')),
      60_000,
    );
    expect(refusal.channel_id).toBe(OTHER_CHANNEL);
    expect(fixture.discord.threads()).toHaveLength(before);
  });

  it('holds a cell for approval; one too long for a form is edited by a reply', async () => {
    await fixture.discord.message({ user: OWNER, channel: threadId, content: 'set approve=always' });
    await fixture.discord.waitFor(() => find('approve=always'), 60_000);
    await fixture.discord.message({ user: OWNER, channel: threadId, content: 'run the long cell' });
    const held = await fixture.discord.waitFor(() => find('Run this python cell?'), 60_000);
    expect(held.attachments.map((attachment) => attachment.filename)).toEqual(['cell.py.txt']);
    const click = await fixture.discord.click({
      user: OWNER,
      channel: threadId,
      messageId: held.id,
      customId: customId(held, ACTION_IDS.edit),
    });
    const told = await fixture.discord.waitFor(
      () =>
        fixture.discord
          .ephemerals(OWNER)
          .find((message) => message.content.includes('longer than the 4,000 characters')),
      60_000,
    );
    expect(told).toBeDefined();
    expect(fixture.discord.interactionResponses(click.id).some((response) => response.type === 9)).toBe(false);
    await fixture.discord.message({ user: OWNER, channel: threadId, content: 'edit\n```python\nlong = 2\n```' });
    await fixture.discord.waitFor(() => find('Approval done.'), 60_000);
    expect(edited).toContain('The user edited the code before it ran');
  });
});
