/**
 * The Slack stand-in's streamed messages against the real Web API client: start → append* → stop,
 * the message in the thread with the markdown so far, the chunks kept in order, and the errors Slack
 * answers for a bad call (chunk shapes, the 12,000-character limit, recipients, the state machine).
 */
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';

const CHANNEL = 'C0GENERAL';

let slack: SlackStandIn;
let client: webApi.WebClient;
let threadTs: string;

beforeEach(async () => {
  slack = await startSlackStandIn({ echoBotMessages: false });
  client = new webApi.WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  threadTs = String((await client.chat.postMessage({ channel: CHANNEL, text: 'question' })).ts);
});
afterEach(async () => {
  await slack.close();
});

/** The Slack error code a call rejected with, or `ok`. */
const errorOf = (call: Promise<unknown>) =>
  call.then(
    () => 'ok',
    (error: { data?: { error?: string } }) => error.data?.error,
  );

const recipients = { recipient_user_id: 'U1ANN', recipient_team_id: 'T0TALLY' };

describe('streamed messages in the Slack stand-in', () => {
  it('keeps a stream as a thread message whose text is the markdown so far, and every chunk in order', async () => {
    const started = await client.chat.startStream({
      channel: CHANNEL,
      thread_ts: threadTs,
      ...recipients,
      task_display_mode: 'plan',
      chunks: [
        { type: 'plan_update', title: 'Plan' },
        { type: 'task_update', id: 'step-1', title: 'Load', status: 'pending' },
      ],
    });
    const ts = String(started.ts);
    await client.chat.appendStream({
      channel: CHANNEL,
      ts,
      chunks: [
        { type: 'task_update', id: 'step-1', title: 'Load', status: 'in_progress', details: 'SELECT 1' },
        { type: 'markdown_text', text: '**Half** ' },
      ],
    });
    await client.chat.stopStream({
      channel: CHANNEL,
      ts,
      chunks: [
        { type: 'task_update', id: 'step-1', title: 'Load', status: 'complete', output: '1 row' },
        { type: 'markdown_text', text: 'done.' },
      ],
    });
    const [stream] = slack.streams(CHANNEL, threadTs);
    expect(stream).toMatchObject({ ts, displayMode: 'plan', state: 'stopped', recipientUserId: 'U1ANN' });
    expect(stream?.chunks.filter(({ chunk }) => chunk.id === 'step-1').map(({ chunk }) => chunk.status)).toEqual([
      'pending',
      'in_progress',
      'complete',
    ]);
    expect(stream?.chunks.map(({ method }) => method)).toEqual([
      'chat.startStream',
      'chat.startStream',
      'chat.appendStream',
      'chat.appendStream',
      'chat.stopStream',
      'chat.stopStream',
    ]);
    expect(slack.thread(CHANNEL, threadTs).replies.find((message) => message.ts === ts)?.text).toBe('**Half** done.');
    expect(await errorOf(client.chat.appendStream({ channel: CHANNEL, ts, markdown_text: 'late' }))).toBe(
      'message_not_in_streaming_state',
    );
    expect(await errorOf(client.chat.stopStream({ channel: CHANNEL, ts }))).toBe('message_not_in_streaming_state');
    expect(await errorOf(client.chat.appendStream({ channel: CHANNEL, ts: '1.000001', markdown_text: 'x' }))).toBe(
      'message_not_found',
    );
  });

  it('refuses chunks of the wrong shape, over 12,000 characters of markdown, and calls missing what Slack needs', async () => {
    const start = (args: Record<string, unknown>) =>
      errorOf(client.chat.startStream({ channel: CHANNEL, thread_ts: threadTs, ...recipients, ...args }));
    expect(await start({ chunks: [{ type: 'task_update', id: 't', title: 'T', status: 'done' }] })).toBe(
      'invalid_chunks',
    );
    expect(await start({ chunks: [{ type: 'task_update', id: 't', status: 'pending' }] })).toBe('invalid_chunks');
    expect(await start({ chunks: [{ type: 'plan_update' }] })).toBe('invalid_chunks');
    expect(await start({ chunks: [{ type: 'markdown_text', text: '' }] })).toBe('invalid_chunks');
    expect(await start({ chunks: [{ type: 'blocks', blocks: [] }] })).toBe('invalid_chunks');
    expect(await start({ chunks: [{ type: 'card' }] })).toBe('invalid_chunks');
    expect(await start({ chunks: [{ type: 'markdown_text', text: 'x'.repeat(12_001) }] })).toBe('msg_too_long');
    expect(
      await start({ markdown_text: 'x'.repeat(6_001), chunks: [{ type: 'markdown_text', text: 'y'.repeat(6_000) }] }),
    ).toBe('msg_too_long');
    expect(await start({ task_display_mode: 'cards' })).toBe('invalid_arguments');
    expect(await errorOf(client.chat.startStream({ channel: CHANNEL, thread_ts: threadTs }))).toBe(
      'missing_recipient_user_id',
    );
    expect(await errorOf(client.chat.startStream({ channel: CHANNEL, ...recipients } as never))).toBe(
      'invalid_arguments',
    );
    expect(await start({ markdown_text: 'x'.repeat(12_000) })).toBe('ok');
    // In a DM the recipient is known.
    const dm = slack.imChannel('U1ANN');
    const dmThread = String((await client.chat.postMessage({ channel: dm, text: 'hi' })).ts);
    expect(await errorOf(client.chat.startStream({ channel: dm, thread_ts: dmThread, markdown_text: 'hello' }))).toBe(
      'ok',
    );
  });

  it('answers a standing fault on every call until it is lifted', async () => {
    slack.failAlways('chat.startStream', { error: 'method_not_supported' });
    const start = () =>
      errorOf(client.chat.startStream({ channel: CHANNEL, thread_ts: threadTs, ...recipients, markdown_text: 'x' }));
    expect([await start(), await start()]).toEqual(['method_not_supported', 'method_not_supported']);
    slack.failAlways('chat.startStream', undefined);
    expect(await start()).toBe('ok');
  });
});
