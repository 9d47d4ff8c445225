/**
 * Slack retries an event whose acknowledgement it did not get (within 3 s, or lost with the connection): the same
 * event in a new envelope with `retry_attempt` one more. tally writes a message down once however often it is
 * delivered, so a retried mention is answered once, and the model asked once. The Slack stand-in (Socket Mode, to
 * the unmodified Bolt), the scripted model, MariaDB and the Docker engine are real.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, say } from '../../src/demo/scripted-model-server.js';
import { ALLOWED_CHANNEL, type SlackTallyFixture, startSlackTallyFixture } from '../support/slack-tally-fixture.js';

const ANN = 'U1ANN';

let fixture: SlackTallyFixture;

beforeAll(async () => {
  fixture = await startSlackTallyFixture([
    callTool('triage', { verdict: 'answerable' }),
    say('The first answer.'),
    callTool('triage', { verdict: 'answerable' }),
    say('An answer to a retry: a message answered twice.'),
  ]);
}, 180_000);

afterAll(async () => {
  await fixture?.close();
}, 120_000);

describe('a Slack event delivered again', () => {
  it('is written down once: a retried mention is answered once', async () => {
    const { slack } = fixture;
    const ts = await slack.mention({ user: ANN, channel: ALLOWED_CHANNEL, text: 'how many customers churned?' });
    const answers = () =>
      slack
        .messages(ALLOWED_CHANNEL, ts)
        .filter((message) => message.user === slack.ids.botUserId && message.text.includes('answer'));
    await slack.waitFor(() => answers().length > 0, 60_000);
    // Slack retries both events of the mention (app_mention and message), as if neither ack had arrived.
    const delivered = slack.envelopes.filter((envelope) => JSON.stringify(envelope.payload).includes(`"ts":"${ts}"`));
    expect(delivered.length).toBeGreaterThan(0);
    for (const envelope of delivered) expect(await slack.redeliver(envelope)).toEqual({});
    await sleep(3000); // a second answer would come now
    expect(answers().map((message) => message.text)).toEqual(['The first answer.']);
    expect(fixture.server.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(2);
    const retried = slack.envelopes.filter((envelope) => envelope.retry_attempt === 1);
    expect(retried.map((envelope) => envelope.retry_reason)).toEqual(delivered.map(() => 'timeout'));
  }, 120_000);
});
