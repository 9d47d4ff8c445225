/**
 * tally on Slack end to end: the real Bolt app (Socket Mode) against the Slack stand-in, the real
 * sandbox, MariaDB with telco_db and the scripted model. What a person in the channel would see is
 * read back from the stand-in's state: messages, files, reactions, ephemerals, views.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import { ACTION_IDS } from '../../src/ports/chat.js';
import type { SlackMessage } from '../support/slack/slack-state.js';
import {
  ALLOWED_CHANNEL,
  OTHER_CHANNEL,
  type SlackTallyFixture,
  startSlackTallyFixture,
} from '../support/slack-tally-fixture.js';

const ANN = 'U1ANN';
const BOB = 'U2BOB';
const CHURN_SQL = `SELECT p.customerID, p.Contract, c.Churn, s.tenure
FROM user_payments p JOIN user_churn c ON c.customerID = p.customerID JOIN user_services s ON s.customerID = p.customerID`;
const CONTRACT_CODE = `import matplotlib.pyplot as plt
rates = customers.assign(churned=customers.Churn.eq("Yes")).groupby("Contract").churned.mean().sort_values()
rates.plot.barh(title="Churn rate by contract")
rates.round(3)`;
const TENURE_CODE = `import matplotlib.pyplot as plt
tenure = customers.tenure.astype(float).dropna()
plt.hist(tenure, bins=12); plt.title("Tenure")
round(tenure.mean(), 1)`;

const last = (context: ScriptContext) => context.lastToolResult?.content ?? '';
const feedbackSeen: string[] = [];
const approvalResults: string[] = [];

let fixture: SlackTallyFixture;
let threadTs = '';

/** The bot's messages in the thread, oldest first. */
const botMessages = () =>
  fixture.slack.messages(ALLOWED_CHANNEL, threadTs).filter((message) => message.user === fixture.slack.ids.botUserId);
const reviewMessage = (title: string) =>
  botMessages().find((message: SlackMessage) => message.text.startsWith('Review ') && message.text.endsWith(title));

beforeAll(async () => {
  fixture = await startSlackTallyFixture([
    callTool('triage', { verdict: 'answerable' }),
    callTool('load_dataframe', { sql: CHURN_SQL, name: 'customers' }),
    callTool('run_python', { code: CONTRACT_CODE }),
    (context) =>
      callTool('draft_section', {
        title: 'Churn by contract',
        stage: 'drivers',
        markdown: `Churn rate by contract:\n\`\`\`\n${last(context)}\n\`\`\``,
      }),
    callTool('run_python', { code: TENURE_CODE }),
    (context) =>
      callTool('draft_section', { title: 'Tenure', stage: 'exploration', markdown: `Mean tenure ${last(context)}` }),
    (context) => {
      feedbackSeen.push(last(context));
      return callTool('draft_section', {
        title: 'Tenure bands',
        revises: 's2',
        markdown: 'Tenure in bands of 12 months.',
      });
    },
    (context) => {
      feedbackSeen.push(last(context));
      return callTool('draft_section', {
        title: 'Tenure bands with counts',
        revises: 's2',
        markdown: 'Tenure in bands of 12 months, with the customers in each.',
      });
    },
    say('Both sections are in the report.'),
    callTool('triage', { verdict: 'answerable' }),
    callTool('run_python', { code: 'edited = 1' }),
    (context) => {
      approvalResults.push(last(context));
      return callTool('run_python', { code: `${'# a long cell\n'.repeat(300)}long = 1` });
    },
    (context) => {
      approvalResults.push(last(context));
      return say('Approval done.');
    },
  ]);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

describe('tally on Slack', () => {
  it('answers a mention in its thread: acknowledgement, its work streamed, a chart uploaded, a section for review', async () => {
    threadTs = await fixture.slack.mention({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      text: 'which contracts churn most?',
    });
    await fixture.slack.waitFor(() => reviewMessage('Churn by contract'), 60_000);
    expect(fixture.slack.reactions(ALLOWED_CHANNEL, threadTs).map((reaction) => reaction.name)).toContain('eyes');
    // The turn's work shows in one streamed message addressed to Ann, stopped when it paused for review.
    const stream = await fixture.slack.waitFor(
      () => fixture.slack.streams(ALLOWED_CHANNEL, threadTs).find((candidate) => candidate.state === 'stopped'),
      60_000,
    );
    expect(stream).toMatchObject({ displayMode: 'timeline', recipientUserId: ANN, recipientTeamId: 'T0TALLY' });
    const cards = stream.chunks.filter(({ chunk }) => chunk.type === 'task_update').map(({ chunk }) => chunk);
    const finalTitles = [...new Map(cards.map((card) => [card.id, card.title])).values()];
    expect(finalTitles).toEqual([
      expect.stringMatching(/^Load customers \([\d,]+ rows\)$/),
      'Run Python',
      'Draft section: Churn by contract',
    ]);
    expect(cards.filter((card) => card.title === 'Run Python').map((card) => card.status)).toEqual([
      'pending',
      'in_progress',
      'complete',
    ]);
    const charts = fixture.slack.files().filter((file) => file.threadTs === threadTs && file.mimetype === 'image/png');
    // Once: the review names the chart above instead of uploading it again.
    expect(charts.map((chart) => chart.title)).toEqual(['Churn rate by contract']);
    expect(JSON.stringify(reviewMessage('Churn by contract')?.blocks)).toContain(
      "Chart above: 'Churn rate by contract'",
    );
    expect(charts[0]?.altText).toMatch(/^Chart 'Churn rate by contract'; y axis: Contract/);
    expect(charts[0]?.title).toBe('Churn rate by contract');
    expect(charts[0]?.bytes?.subarray(1, 4).toString()).toBe('PNG');
    // The chart, posted while the turn worked, lands below the streamed message.
    const chartMessage = botMessages().find((message) =>
      message.files?.some((file) => file.title === charts[0]?.title),
    );
    expect(Number(chartMessage?.ts)).toBeGreaterThan(Number(stream.ts));
    expect(fixture.slack.callsTo('files.upload')).toHaveLength(0); // never the retired method
  });

  it("refuses another person's Accept with a message only they see", async () => {
    const review = reviewMessage('Churn by contract');
    await fixture.slack.click({
      user: BOB,
      channel: ALLOWED_CHANNEL,
      messageTs: review?.ts ?? '',
      actionId: ACTION_IDS.accept,
      value: 's1@1',
    });
    const refusal = await fixture.slack.waitFor(() => fixture.slack.ephemerals(BOB)[0], 60_000);
    expect(refusal.text).toMatch(/only the person who started this thread/);
    expect(reviewMessage('Tenure')).toBeUndefined();
  });

  it('accepts by button through a rate limit: the confirmation arrives once, then the next section', async () => {
    const callsBefore = fixture.slack.calls.length;
    fixture.slack.failNext('chat.postMessage', { status: 429, retryAfterSeconds: 1 });
    const review = reviewMessage('Churn by contract');
    await fixture.slack.click({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      messageTs: review?.ts ?? '',
      actionId: ACTION_IDS.accept,
      value: 's1@1',
    });
    await fixture.slack.waitFor(() => reviewMessage('Tenure'), 60_000);
    const confirmations = botMessages().filter((message) => message.text.includes('Accepted s1'));
    expect(confirmations).toHaveLength(1);
    // The post that met the 429 was sent again, unchanged, after the wait, and is in the thread once.
    const posts = fixture.slack.calls.slice(callsBefore).filter((call) => call.method === 'chat.postMessage');
    const limited = posts.findIndex((call) => call.outcome === 'http 429');
    expect(limited).toBeGreaterThanOrEqual(0);
    const retried = posts.slice(limited + 1).find((call) => isDeepStrictEqual(call.args, posts[limited]?.args));
    expect(retried?.outcome).toBe('ok');
    expect(retried?.args.thread_ts).toBe(threadTs);
    expect(botMessages().filter((message) => message.text === retried?.args.text)).toHaveLength(1);
  });

  it('revises by reaction with the feedback replied in the thread, then by button through the form', async () => {
    const tenure = reviewMessage('Tenure');
    await fixture.slack.react({ user: ANN, channel: ALLOWED_CHANNEL, ts: tenure?.ts ?? '', reaction: 'pencil2' });
    await fixture.slack.waitFor(
      () => botMessages().find((message) => message.text.includes('What should change in s2')),
      60_000,
    );
    await fixture.slack.reply({ user: ANN, channel: ALLOWED_CHANNEL, threadTs, text: 'use tenure bands of a year' });
    await fixture.slack.waitFor(() => reviewMessage('Tenure bands'), 60_000);
    expect(feedbackSeen[0]).toContain('use tenure bands of a year');

    const bands = reviewMessage('Tenure bands');
    await fixture.slack.click({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      messageTs: bands?.ts ?? '',
      actionId: ACTION_IDS.revise,
      value: 's2@2',
    });
    const view = await fixture.slack.waitFor(() => fixture.slack.views()[0], 60_000);
    await fixture.slack.submitView({
      user: ANN,
      viewId: view.id,
      values: { feedback: { feedback: 'add the counts' } },
    });
    await fixture.slack.waitFor(() => reviewMessage('Tenure bands with counts'), 60_000);
    expect(feedbackSeen[1]).toContain('add the counts');
  });

  it('accepts by reaction and uploads the report with exactly the accepted sections, in order', async () => {
    const final = reviewMessage('Tenure bands with counts');
    await fixture.slack.react({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      ts: final?.ts ?? '',
      reaction: 'white_check_mark',
    });
    await fixture.slack.waitFor(
      () => botMessages().find((message) => message.text === 'Both sections are in the report.'),
      60_000,
    );
    await fixture.slack.reply({ user: ANN, channel: ALLOWED_CHANNEL, threadTs, text: 'report' });
    const html = await fixture.slack.waitFor(
      () => fixture.slack.files().find((file) => file.threadTs === threadTs && file.name === 'report.html'),
      60_000,
    );
    const page = html.bytes?.toString() ?? '';
    expect(page.indexOf('Churn by contract')).toBeGreaterThan(0);
    expect(page.indexOf('Tenure bands with counts')).toBeGreaterThan(page.indexOf('Churn by contract'));
    expect(page).not.toContain('Mean tenure');
    const notebook = await fixture.slack.waitFor(
      () => fixture.slack.files().find((file) => file.threadTs === threadTs && file.name === 'report.ipynb'),
      60_000,
    );
    expect(JSON.parse(notebook.bytes?.toString() ?? '{}').nbformat).toBe(4);
    const names = fixture.slack
      .files()
      .filter((file) => file.threadTs === threadTs)
      .map((file) => file.name);
    expect(names).toEqual(expect.arrayContaining(['report.md', 'report.html', 'report.ipynb', 's1-1.png']));
  });

  it('refuses a channel that is not allowed, telling only the person', async () => {
    await fixture.slack.mention({ user: BOB, channel: OTHER_CHANNEL, text: 'hello?' });
    const refusal = await fixture.slack.waitFor(
      () => fixture.slack.ephemerals(BOB).find((message) => message.text.includes('not enabled in this channel')),
      60_000,
    );
    expect(refusal.channel).toBe(OTHER_CHANNEL);
    expect(
      fixture.slack.messages(OTHER_CHANNEL).filter((message) => message.user === fixture.slack.ids.botUserId),
    ).toEqual([]);
  });

  it('ignores replies in threads it is not part of', async () => {
    const parent = await fixture.slack.reply({
      user: BOB,
      channel: ALLOWED_CHANNEL,
      threadTs: '1699999999.000100',
      text: '```python\nprint("not for tally")\n```',
    });
    const mentionedLater = await fixture.slack.mention({
      user: BOB,
      channel: ALLOWED_CHANNEL,
      text: '```python\n1\n```',
    });
    await fixture.slack.waitFor(
      () =>
        fixture.slack
          .messages(ALLOWED_CHANNEL, mentionedLater)
          .find((message) => message.user === fixture.slack.ids.botUserId),
      60_000,
    );
    const answered = fixture.slack
      .messages(ALLOWED_CHANNEL, '1699999999.000100')
      .filter((message) => message.user === fixture.slack.ids.botUserId);
    expect(parent).toBeTruthy();
    expect(answered).toEqual([]);
  });

  it('keeps two threads of one channel apart: their own kernels and variables', async () => {
    const [first, second] = await Promise.all([
      fixture.slack.mention({ user: ANN, channel: ALLOWED_CHANNEL, text: "```python\nwho = 'first'\n```" }),
      fixture.slack.mention({ user: BOB, channel: ALLOWED_CHANNEL, text: "```python\nwho = 'second'\n```" }),
    ]);
    for (const ts of [first, second]) {
      await fixture.slack.waitFor(
        () =>
          fixture.slack.messages(ALLOWED_CHANNEL, ts).some((message) => message.user === fixture.slack.ids.botUserId),
        60_000,
      );
      await fixture.slack.reply({
        user: ts === first ? ANN : BOB,
        channel: ALLOWED_CHANNEL,
        threadTs: ts,
        text: '```python\nwho\n```',
      });
    }
    const shown = async (ts: string) =>
      fixture.slack.waitFor(
        () => fixture.slack.messages(ALLOWED_CHANNEL, ts).find((message) => /result \(str\)/.test(message.text)),
        60_000,
      );
    expect((await shown(first)).text).toContain("'first'");
    expect((await shown(second)).text).toContain("'second'");
  });

  it('holds cells for approval: Edit opens a form with the code, and a cell too long for a form is replied instead', async () => {
    await fixture.slack.reply({ user: ANN, channel: ALLOWED_CHANNEL, threadTs, text: 'set approve=always' });
    await fixture.slack.waitFor(() => botMessages().find((message) => message.text.includes('approve=always')), 60_000);
    await fixture.slack.reply({ user: ANN, channel: ALLOWED_CHANNEL, threadTs, text: 'set a flag in the kernel' });
    const held = await fixture.slack.waitFor(
      () => botMessages().find((message) => message.text.startsWith('*Run this python cell?*')),
      60_000,
    );
    await fixture.slack.click({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      messageTs: held.ts,
      actionId: ACTION_IDS.edit,
      value: 'x',
    });
    const form = await fixture.slack.waitFor(
      () => fixture.slack.views().find((view) => JSON.stringify(view.view).includes('edited = 1')),
      60_000,
    );
    await fixture.slack.submitView({ user: ANN, viewId: form.id, values: { code: { code: 'edited = 2' } } });
    await fixture.slack.waitFor(() => approvalResults[0], 60_000);
    expect(approvalResults[0]).toContain('The user edited the code before it ran');

    const long = await fixture.slack.waitFor(
      () => botMessages().filter((message) => message.text.startsWith('*Run this python cell?*'))[1],
      60_000,
    );
    await fixture.slack.click({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      messageTs: long.ts,
      actionId: ACTION_IDS.edit,
      value: 'x',
    });
    await fixture.slack.waitFor(
      () => botMessages().find((message) => message.text.includes('longer than the 3,000 characters')),
      60_000,
    );
    await fixture.slack.reply({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      threadTs,
      text: 'edit\n```python\nlong = 2\n```',
    });
    await fixture.slack.waitFor(() => botMessages().find((message) => message.text === 'Approval done.'), 60_000);
    await fixture.slack.reply({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      threadTs,
      text: '```python\n(edited, long)\n```',
    });
    const shown = await fixture.slack.waitFor(
      () => botMessages().find((message) => message.text.includes('(2, 2)')),
      60_000,
    );
    expect(shown).toBeDefined();
  });

  it('takes data files shared in the thread into the session, and refuses other types', async () => {
    await fixture.slack.shareFile({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      threadTs,
      name: 'sales.csv',
      mimetype: 'text/csv',
      content: Buffer.from('region,sales\nnorth,10\n'),
    });
    await fixture.slack.waitFor(
      () => botMessages().find((message) => message.text.includes('/inputs/uploads/sales.csv')),
      60_000,
    );
    await fixture.slack.shareFile({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      threadTs,
      name: 'tool.exe',
      mimetype: 'application/octet-stream',
      content: Buffer.from('MZ'),
    });
    await fixture.slack.waitFor(
      () => botMessages().find((message) => message.text.includes('Not taken: tool.exe')),
      60_000,
    );
  });

  it('works in a direct message too', async () => {
    const ts = await fixture.slack.directMessage({ user: BOB, text: '```python\n6 * 7\n```' });
    const channel = fixture.slack.imChannel(BOB);
    const answer = await fixture.slack.waitFor(
      () => fixture.slack.messages(channel, ts).find((message) => message.user === fixture.slack.ids.botUserId),
      60_000,
    );
    expect(answer.text).toContain('42');
  });
});
