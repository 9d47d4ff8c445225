/**
 * The Slack adapter over the HTTP Events API: Bolt's HTTPReceiver verifies every request's
 * signature and timestamp; signed events reach tally, anything else gets 401 and reaches nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackAdapter } from '../../adapters/slack/slack-adapter.js';
import { createLogger } from '../../src/base/logger.js';
import type { Inbound } from '../../src/ports/chat.js';
import { eventCallback, urlVerification } from '../support/slack/events.js';
import { signedRequest } from '../support/slack/http-lane.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';

const SECRET = 'signing-secret-for-tests';
let slack: SlackStandIn;
let adapter: SlackAdapter;
let url = '';
const received: Inbound[] = [];

beforeAll(async () => {
  slack = await startSlackStandIn();
  adapter = new SlackAdapter({
    botToken: slack.botToken,
    signingSecret: SECRET,
    port: 0,
    apiUrl: slack.apiUrl,
    minIntervalMs: 0,
    logger: createLogger({ level: 'silent' }),
  });
  adapter.onInbound(async (inbound) => {
    received.push(inbound);
  });
  await adapter.start();
  url = `http://127.0.0.1:${adapter.httpPort}/slack/events`;
});
afterAll(async () => {
  await adapter?.stop();
  await slack?.close();
});

const mention = (text: string) =>
  eventCallback(slack.ids, {
    type: 'app_mention',
    user: 'U1ANN',
    text: `<@${slack.ids.botUserId}> ${text}`,
    ts: '1700000000.000100',
    channel: 'C0GENERAL',
    event_ts: '1700000000.000100',
    team: slack.ids.teamId,
  });

describe('Slack over HTTP', () => {
  it('counts as connected once it listens (readiness), with no socket to keep up', () => {
    expect(adapter.isConnected()).toBe(true);
  });

  it('answers the URL verification challenge', async () => {
    const response = await signedRequest(url, urlVerification('c-123'), { signingSecret: SECRET });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ challenge: 'c-123' });
  });

  it('hands a signed mention to tally, as a thread of its own', async () => {
    const response = await signedRequest(url, mention('how many customers?'), { signingSecret: SECRET });
    expect(response.status).toBe(200);
    const inbound = await slack.waitFor(
      () => received.find((message) => message.text === 'how many customers?'),
      60_000,
    );
    expect(inbound.threadKey).toBe(`slack:${slack.ids.teamId}:C0GENERAL:1700000000.000100`);
    expect(inbound.user.id).toBe('U1ANN');
  });

  it('rejects an unsigned or wrongly signed request with 401, and nothing reaches tally', async () => {
    const before = received.length;
    const wrong = await signedRequest(url, mention('forged'), { signingSecret: SECRET, signature: 'v0=deadbeef' });
    expect(wrong.status).toBe(401);
    const unsigned = await fetch(url, {
      method: 'POST',
      body: JSON.stringify(mention('unsigned')),
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.status).toBe(401);
    expect(received).toHaveLength(before);
  });

  it('rejects a request whose timestamp is older than five minutes with 401', async () => {
    const before = received.length;
    const stale = await signedRequest(url, mention('replayed'), {
      signingSecret: SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    expect(stale.status).toBe(401);
    expect(received).toHaveLength(before);
  });
});
