/**
 * A Slack turn as the thread sees it while it works: the real Bolt app against the Slack stand-in,
 * the real sandbox and MariaDB, the scripted model. A planned turn whose cell fails and is repaired
 * streams one message (a plan block whose steps end complete, a card per call with every status it
 * went through, the answer as markdown, appends coalesced); a workspace that refuses streams sees the
 * turn as before (the task as thread status, the plan once, messages) and is not asked again.
 */
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import type { Post, ThreadKey } from '../../src/ports/chat.js';
import type { Json, SlackStreamRecord } from '../support/slack/slack-state.js';
import { ALLOWED_CHANNEL, type SlackTallyFixture, startSlackTallyFixture } from '../support/slack-tally-fixture.js';

const ANN = 'U1ANN';
const LOAD_SQL = `SELECT p.customerID, p.Contract, c.Churn
FROM user_payments p JOIN user_churn c ON c.customerID = p.customerID`;
const BROKEN = '# Churn rate by contract\nrate = churned_share * 100';
// The repaired cell runs longer than the stream's interval, so the stream appends while it works.
const FIXED =
  '# Churn rate by contract\nimport time\ntime.sleep(2)\nrate = customers.Churn.eq("Yes").mean() * 100\nround(rate, 1)';
const PLAN = '1. Load the customers with their contract and churn.\n2. Compute the churn rate.\n3. Answer with it.';

const last = (context: ScriptContext) => context.lastToolResult?.content ?? '';
const answers: string[] = [];

let fixture: SlackTallyFixture;
let posts: MockInstance<(threadKey: ThreadKey, post: Post) => Promise<unknown>>;

beforeAll(async () => {
  fixture = await startSlackTallyFixture(
    [
      // A streamed, planned turn: a cell fails with a NameError and is repaired.
      callTool('triage', { verdict: 'answerable', multi_step: true }),
      say(PLAN),
      callTool('load_dataframe', { sql: LOAD_SQL, name: 'customers', plan_step: 1 }),
      callTool('run_python', { code: BROKEN, plan_step: 2 }),
      callTool('run_python', { code: FIXED, plan_step: 2 }),
      (context) => {
        answers.push(last(context));
        return say(`**${last(context).split('\n').at(-1)}%** of customers churned.\n\n- computed from \`customers\``);
      },
      // Streams refused: a planned turn, then a plain one in the same workspace.
      callTool('triage', { verdict: 'answerable', multi_step: true }),
      say('1. Load the customers.\n2. Count them.'),
      callTool('load_dataframe', { sql: LOAD_SQL, name: 'customers', plan_step: 1 }),
      say('Loaded them all.'),
      callTool('triage', { verdict: 'answerable' }),
      callTool('run_python', { code: 'len(customers)' }),
      say('Still all there.'),
    ],
    {},
    // Long enough that the appends of a turn are few whatever the machine's speed.
    { streamIntervalMs: 1500 },
  );
  posts = vi.spyOn(fixture.service.adapter, 'post');
}, 120_000);
afterAll(async () => {
  posts?.mockRestore();
  await fixture?.close();
});

const botMessages = (threadTs: string) =>
  fixture.slack.messages(ALLOWED_CHANNEL, threadTs).filter((message) => message.user === fixture.slack.ids.botUserId);
const cards = (stream: SlackStreamRecord) =>
  stream.chunks.filter(({ chunk }) => chunk.type === 'task_update').map(({ chunk }) => chunk);
/** A card's statuses in the order they were sent. */
const statuses = (stream: SlackStreamRecord, id: string) =>
  cards(stream)
    .filter((card) => card.id === id)
    .map((card) => card.status);
const progressPosts = (threadTs: string) =>
  posts.mock.calls.filter(([key, post]) => key === fixture.threadKey(threadTs) && post.kind === 'progress').length;

describe('a Slack turn, streamed', () => {
  let threadTs = '';
  let stream: SlackStreamRecord;

  beforeAll(async () => {
    threadTs = await fixture.slack.mention({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      text: 'What share of customers churned?',
    });
    stream = await fixture.slack.waitFor(
      () => fixture.slack.streams(ALLOWED_CHANNEL, threadTs).find((candidate) => candidate.state === 'stopped'),
      60_000,
    );
  }, 90_000);

  it('opens one streamed message for the person who asked, with a plan block whose steps end complete', () => {
    expect(fixture.slack.streams(ALLOWED_CHANNEL, threadTs)).toHaveLength(1);
    expect(stream).toMatchObject({ displayMode: 'plan', recipientUserId: ANN, recipientTeamId: 'T0TALLY' });
    expect(stream.chunks[0]).toEqual({ method: 'chat.startStream', chunk: { type: 'plan_update', title: 'Plan' } });
    const steps = ['step-1', 'step-2', 'step-3'];
    const titles = steps.map((id) => cards(stream).find((card) => card.id === id)?.title);
    expect(titles).toEqual([
      'Load the customers with their contract and churn.',
      'Compute the churn rate.',
      'Answer with it.',
    ]);
    for (const id of steps) expect(statuses(stream, id).at(-1)).toBe('complete');
    expect(statuses(stream, 'step-2')).toEqual(expect.arrayContaining(['pending', 'in_progress', 'complete']));
  });

  it('shows the failing cell and its repair as cards: pending → in_progress → error, then → complete "repaired"', () => {
    const python = [...new Set(cards(stream).map((card) => String(card.id)))].filter((id) =>
      cards(stream).some((card) => card.id === id && card.title === 'Churn rate by contract'),
    );
    expect(python).toHaveLength(2);
    const [broken = '', fixed = ''] = python;
    expect(statuses(stream, broken)).toEqual(['pending', 'in_progress', 'error']);
    expect(cards(stream).findLast((card) => card.id === broken)?.output).toBe(
      "NameError: name 'churned_share' is not defined",
    );
    expect(statuses(stream, fixed)).toEqual(['pending', 'in_progress', 'complete']);
    expect(cards(stream).findLast((card) => card.id === fixed)?.output).toBe('repaired');
    const load = cards(stream).find((card) => String(card.title).startsWith('Load customers'));
    expect(load?.details).toContain('FROM user_payments p JOIN user_churn c');
    expect(cards(stream).findLast((card) => card.id === load?.id)?.title).toMatch(/^Load customers \([\d,]+ rows\)$/);
  });

  it('streams the answer as markdown into the same message', () => {
    const rate = answers[0]?.split('\n').at(-1) ?? '';
    expect(rate).toMatch(/^\d+(\.\d+)?$/);
    const markdown = stream.chunks
      .filter(({ chunk }) => chunk.type === 'markdown_text')
      .map(({ chunk }) => (chunk as Json).text)
      .join('');
    // Markdown as written, not converted to mrkdwn.
    expect(markdown).toContain(`**${rate}%** of customers churned.\n\n- computed from \`customers\``);
    const message = botMessages(threadTs).find((candidate) => candidate.ts === stream.ts);
    expect(message?.text).toContain(`**${rate}%** of customers churned.`);
    expect(botMessages(threadTs).filter((candidate) => candidate.text.includes('of customers churned'))).toHaveLength(
      1,
    );
  });

  it('stops once and coalesces its appends', () => {
    const of = (method: string) => fixture.slack.callsTo(method).filter((call) => call.args.ts === stream.ts);
    expect(of('chat.stopStream')).toHaveLength(1);
    expect(of('chat.stopStream')[0]?.outcome).toBe('ok');
    const appends = of('chat.appendStream');
    expect(appends.length).toBeGreaterThan(0);
    expect(appends.every((call) => call.outcome === 'ok')).toBe(true);
    // Every change of the turn was posted as a progress post; a call carries several of them.
    const shown = progressPosts(threadTs);
    expect(shown).toBeGreaterThanOrEqual(10);
    expect(appends.length).toBeLessThan(shown / 2);
    const carried = [...appends, ...of('chat.stopStream')].map((call) => (call.args.chunks as unknown[]).length);
    expect(carried.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(2 * carried.length);
    expect(fixture.slack.callsTo('chat.startStream').filter((call) => call.args.thread_ts === threadTs)).toHaveLength(
      1,
    );
  });
});

describe('a Slack workspace that refuses streams', () => {
  it('shows the turn as before: the task as thread status, the plan once, the answer as a message; and is not asked again', async () => {
    fixture.slack.failAlways('chat.startStream', { error: 'method_not_supported' });
    const threadTs = await fixture.slack.mention({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      text: 'How many customers are there?',
    });
    await fixture.slack.waitFor(
      () => botMessages(threadTs).find((message) => message.text === 'Loaded them all.'),
      60_000,
    );
    expect(fixture.slack.callsTo('chat.startStream').at(-1)?.outcome).toBe('method_not_supported');
    expect(fixture.slack.streams(ALLOWED_CHANNEL, threadTs)).toEqual([]);
    const plans = botMessages(threadTs).filter((message) => message.text.startsWith('*Plan*'));
    expect(plans.map((message) => message.text)).toEqual(['*Plan*\n1. Load the customers.\n2. Count them.']);
    const status = await fixture.slack.waitForCall(
      'assistant.threads.setStatus',
      (call) => call.args.thread_ts === threadTs && String(call.args.status).startsWith('Load customers'),
    );
    expect(status.outcome).toBe('ok');

    const startsBefore = fixture.slack.callsTo('chat.startStream').length;
    await fixture.slack.reply({ user: ANN, channel: ALLOWED_CHANNEL, threadTs, text: 'are they still all there?' });
    await fixture.slack.waitFor(
      () => botMessages(threadTs).find((message) => message.text === 'Still all there.'),
      60_000,
    );
    expect(fixture.slack.callsTo('chat.startStream')).toHaveLength(startsBefore);
    expect(botMessages(threadTs).filter((message) => message.text.startsWith('*Plan*'))).toHaveLength(1);
  });
});
