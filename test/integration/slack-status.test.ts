/**
 * The thread status on Slack: coalesced to the latest text, sent with assistant.threads.setStatus,
 * and shown as one updated status message where that method is refused.
 */
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChannelQueue } from '../../adapters/common/channel-queue.js';
import { SlackStatus } from '../../adapters/slack/slack-status.js';
import { createLogger } from '../../src/base/logger.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';

let slack: SlackStandIn;
let status: SlackStatus;
const thread = { team: 'T1', channel: 'C0GENERAL', threadTs: '1700000000.000100' };

beforeEach(async () => {
  slack = await startSlackStandIn();
  const client = new webApi.WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  const queue = new ChannelQueue({ minIntervalMs: 0, isTransient: () => false });
  status = new SlackStatus(client, queue, 50, createLogger({ level: 'silent' }));
});
afterEach(async () => {
  await status.close();
  await slack.close();
});

describe('the Slack thread status', () => {
  it('sends only the latest of a burst of status changes', async () => {
    for (const text of ['listing tables', 'running SQL', 'drawing a chart']) status.set(thread, text);
    const call = await slack.waitForCall('assistant.threads.setStatus');
    expect(call.args).toMatchObject({ channel_id: 'C0GENERAL', thread_ts: thread.threadTs, status: 'drawing a chart' });
    status.set(thread, 'writing the answer');
    await slack.waitFor(() => slack.callsTo('assistant.threads.setStatus').length === 2);
    expect(slack.callsTo('assistant.threads.setStatus').map((entry) => entry.args.status)).toEqual([
      'drawing a chart',
      'writing the answer',
    ]);
  });

  it('falls back to one status message, updated, when setStatus is refused', async () => {
    slack.failNext('assistant.threads.setStatus', { error: 'not_allowed_token_type' });
    status.set(thread, 'listing tables');
    const posted = await slack.waitFor(() => slack.callsTo('chat.postMessage')[0]);
    expect(posted.args).toMatchObject({ channel: 'C0GENERAL', thread_ts: thread.threadTs, text: '_… listing tables_' });
    status.set(thread, 'running SQL');
    const updated = await slack.waitFor(() => slack.callsTo('chat.update')[0]);
    expect(updated.args.text).toBe('_… running SQL_');
    expect(slack.callsTo('chat.postMessage')).toHaveLength(1);
  });
});
