/**
 * `SlackTurns` with the real Web API client against the Slack stand-in (no Bolt app, no agent): a
 * turn becomes one streamed message addressed to the person who asked; where streams are refused the
 * turn shows as before (status, the plan once, messages) and the workspace is remembered, across a
 * restart too; a stream that fails mid-turn loses no text.
 */
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChannelQueue } from '../../adapters/common/channel-queue.js';
import type { PostMemory } from '../../adapters/common/remembered-posts.js';
import { SlackStatus } from '../../adapters/slack/slack-status.js';
import { SlackTurns } from '../../adapters/slack/slack-turns.js';
import { createLogger } from '../../src/base/logger.js';
import type { Post, ProgressTask, TurnProgress } from '../../src/ports/chat.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';

const CHANNEL = 'C0GENERAL';
const logger = createLogger({ level: 'silent' });

let slack: SlackStandIn;
let threadTs: string;
const closers: Array<() => Promise<void>> = [];

beforeEach(async () => {
  slack = await startSlackStandIn({ echoBotMessages: false });
  const client = new webApi.WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  threadTs = String((await client.chat.postMessage({ channel: CHANNEL, text: 'A thread to work in' })).ts);
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await slack.close();
});

class MapMemory implements PostMemory {
  readonly values = new Map<string, unknown>();
  async get<T>(key: string) {
    return this.values.get(key) as T | undefined;
  }
  async set<T>(key: string, value: T) {
    this.values.set(key, value);
  }
}

/** SlackTurns as the adapter uses it: what it does not take is posted as a message. */
function turns(memory?: PostMemory, intervalMs = 50) {
  const client = new webApi.WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  const queue = new ChannelQueue({ minIntervalMs: 0, isTransient: () => false });
  const status = new SlackStatus(client, queue, 0, logger);
  const postText = (markdown: string) =>
    queue.run(CHANNEL, () => client.chat.postMessage({ channel: CHANNEL, thread_ts: threadTs, text: markdown }));
  const shown = new SlackTurns({
    client,
    queue,
    status,
    postText: (_threadKey, markdown) => postText(markdown),
    ...(memory ? { memory } : {}),
    intervalMs,
    logger,
  });
  closers.push(async () => {
    await shown.close();
    await status.close();
  });
  return {
    async post(post: Post) {
      const ref = await shown.take(key(), post);
      if (!ref && post.kind === 'text') await postText(post.markdown);
      return ref;
    },
  };
}

const key = () => `slack:${slack.ids.teamId}:${CHANNEL}:${threadTs}`;

/** A turn's progress posts: a plan of two steps and one call that loads rows. */
function turnPosts(turnId: string): TurnProgress[] {
  const load = (status: ProgressTask['status'], extra: Partial<ProgressTask> = {}): ProgressTask => ({
    id: `${turnId}-c1`,
    title: 'Load customers',
    status,
    details: 'SELECT * FROM customers',
    ...extra,
  });
  const at = (
    plan: ['pending' | 'in_progress' | 'complete', 'pending' | 'in_progress' | 'complete'],
    tasks: ProgressTask[],
    state: TurnProgress['state'] = 'running',
  ): TurnProgress => ({
    turnId,
    userId: 'U1ANN',
    startedAt: 0,
    state,
    plan: [
      { title: 'Load the customers', status: plan[0] },
      { title: 'Answer', status: plan[1] },
    ],
    tasks,
  });
  return [
    at(['pending', 'pending'], []),
    at(['pending', 'pending'], [load('pending')]),
    at(['in_progress', 'pending'], [load('in_progress', { rows: { received: 100 } })]),
    at(['in_progress', 'pending'], [load('complete', { title: 'Load customers (200 rows)' })]),
  ];
}

async function runTurn(shown: ReturnType<typeof turns>, turnId: string, answer: string) {
  const posts = turnPosts(turnId);
  const last = posts.at(-1) as TurnProgress;
  const texts: Array<string | undefined> = [];
  for (const progress of posts) await shown.post({ kind: 'progress', progress });
  texts.push((await shown.post({ kind: 'text', markdown: answer }))?.id);
  await shown.post({
    kind: 'progress',
    progress: { ...last, state: 'done', plan: last.plan.map((step) => ({ ...step, status: 'complete' })) },
  });
  return texts;
}

const botTexts = () => slack.thread(CHANNEL, threadTs).replies.filter((message) => message.user === 'UBOT');

describe('SlackTurns', () => {
  it('streams a turn into one message: plan block, cards, the answer as markdown, stopped once', async () => {
    const shown = turns();
    const [answerRef] = await runTurn(shown, 'turn-1', '**200** customers.');
    const [stream] = slack.streams(CHANNEL, threadTs);
    expect(stream).toMatchObject({
      displayMode: 'plan',
      state: 'stopped',
      recipientUserId: 'U1ANN',
      recipientTeamId: 'T0TALLY',
    });
    expect(answerRef).toBe(stream?.ts);
    const chunks = stream?.chunks.map(({ chunk }) => chunk) ?? [];
    expect(chunks[0]).toEqual({ type: 'plan_update', title: 'Plan' });
    const statuses = (id: string) => chunks.filter((chunk) => chunk.id === id).map((chunk) => chunk.status);
    expect(statuses('turn-1-c1')).toEqual(['pending', 'in_progress', 'complete']);
    expect(statuses('step-1').at(-1)).toBe('complete');
    expect(statuses('step-2').at(-1)).toBe('complete');
    expect(botTexts().map((message) => message.text)).toEqual(['**200** customers.']);
    expect(slack.callsTo('chat.stopStream')).toHaveLength(1);
  });

  it('where streams are refused, shows the turn as before and remembers the workspace, across a restart too', async () => {
    slack.failAlways('chat.startStream', { error: 'method_not_supported' });
    const memory = new MapMemory();
    const shown = turns(memory);
    await runTurn(shown, 'turn-1', 'First answer.');
    expect(botTexts().map((message) => message.text)).toEqual([
      '**Plan**\n1. Load the customers\n2. Answer',
      'First answer.',
    ]);
    // The task under way as the thread status (coalesced: at least one of them shows).
    const status = await slack.waitForCall('assistant.threads.setStatus');
    expect(status.args).toMatchObject({ channel_id: CHANNEL, thread_ts: threadTs });
    expect(String(status.args.status)).toMatch(/^Load (customers|the customers)/);

    await runTurn(shown, 'turn-2', 'Second answer.');
    expect(slack.callsTo('chat.startStream')).toHaveLength(1);
    // The thread's plan is not posted again.
    expect(botTexts().map((message) => message.text)).toEqual([
      '**Plan**\n1. Load the customers\n2. Answer',
      'First answer.',
      'Second answer.',
    ]);

    // Remembered in the store: after a restart the workspace is still not asked to stream.
    await runTurn(turns(memory), 'turn-3', 'Third answer.');
    expect(slack.callsTo('chat.startStream')).toHaveLength(1);
    expect(botTexts().at(-1)?.text).toBe('Third answer.');
  });

  it('falls back for that turn only when a stream call fails mid-turn, and posts the text it could not stream', async () => {
    slack.failNext('chat.stopStream', { error: 'message_not_in_streaming_state' });
    const shown = turns();
    await runTurn(shown, 'turn-1', 'The answer.');
    const messages = botTexts();
    expect(messages.at(-1)?.text).toBe('The answer.');
    await runTurn(shown, 'turn-2', 'Next answer.');
    expect(slack.callsTo('chat.startStream')).toHaveLength(2);
    expect(slack.streams(CHANNEL, threadTs)[1]?.state).toBe('stopped');
  });

  it('posts the text queued behind a failed append as a message, whole and in order', async () => {
    slack.failNext('chat.appendStream', { error: 'internal_error' });
    // An interval longer than the turn: everything waits for its end, where the answer (over the
    // 12,000 characters of one call) needs two appends before the stop, and the first one fails.
    const shown = turns(undefined, 60_000);
    const answer = Array.from({ length: 30 }, (_, index) => `Paragraph ${index}: ${'x'.repeat(480)}`).join('\n\n');
    await runTurn(shown, 'turn-1', answer);
    expect(slack.callsTo('chat.appendStream').map((call) => call.outcome)).toEqual(['internal_error']);
    // The streamed message shows none of it (only its cards); the whole answer follows as a message.
    const [stream] = slack.streams(CHANNEL, threadTs);
    expect(stream?.chunks.filter(({ chunk }) => chunk.type === 'markdown_text')).toEqual([]);
    expect(botTexts().map((message) => [message.ts === stream?.ts ? 'stream' : 'message', message.text])).toEqual([
      ['stream', ''],
      ['message', answer],
    ]);
  });
});
