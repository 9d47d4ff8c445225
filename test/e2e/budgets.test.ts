/**
 * Daily budgets on Slack, end to end: the real Bolt app against the Slack stand-in, the real sandbox and
 * MariaDB, a policy file, and a scripted model that reports a set number of tokens for every reply. A person
 * who uses up a budget part-way through a turn sees that turn through; their next message is declined with what
 * ran out and when it resets, and costs no model request; others in the channel, and people the policy gives a
 * larger budget, are answered as before. Operators see it in /metrics and in the audit trail.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type ScriptReply, say } from '../../src/demo/scripted-model-server.js';
import { Inbox } from '../../src/sessions/inbox.js';
import { type SessionRecord, sessionKey } from '../../src/sessions/session-record.js';
import { parseExposition, sampleValue } from '../support/prometheus-text.js';
import { ALLOWED_CHANNEL, type SlackTallyFixture, startSlackTallyFixture } from '../support/slack-tally-fixture.js';

const ALICE = 'U1ALICE'; // the default budgets
const BOB = 'U2BOB'; // the default budgets
const CAROL = 'U3CAROL'; // the default budgets, spent on kernel time
const DAVE = 'U4DAVE'; // in a set the policy gives larger budgets
const TOKENS_PER_DAY = 1_000;
const SLEEP_CODE = 'import time\ntime.sleep(0.1)\nprint("rested")';
const REFUSED = 'Your daily budget is used up';

/** A reply for which the model reports `tokens` tokens, half prompt, half completion. */
const costing = (tokens: number, reply: ScriptReply): ScriptReply => ({
  ...reply,
  usage: { promptTokens: tokens / 2, completionTokens: tokens / 2 },
});

const SCRIPT = [
  // Alice: 400 tokens a request; the budget (1,000) is crossed by the third, and the fourth still answers.
  costing(400, callTool('triage', { verdict: 'answerable' })),
  costing(400, callTool('list_tables', {})),
  costing(400, callTool('run_sql', { sql: 'SELECT COUNT(*) AS customers FROM user_churn' })),
  costing(400, say('Alice: the churn table is counted.')),
  // Bob, after Alice was refused.
  costing(100, callTool('triage', { verdict: 'answerable' })),
  costing(100, say('Bob: here is your answer.')),
  // Carol: few tokens, but a cell longer than her kernel minutes (0.0001 min, 6 ms).
  costing(50, callTool('triage', { verdict: 'answerable' })),
  costing(50, callTool('run_python', { code: SLEEP_CODE })),
  costing(50, say('Carol: the kernel rested.')),
  // Dave: more than the default budgets of both, less than his set's; then answered again.
  costing(600, callTool('triage', { verdict: 'answerable' })),
  costing(600, callTool('run_python', { code: SLEEP_CODE })),
  costing(600, say('Dave: the kernel rested too.')),
  costing(100, callTool('triage', { verdict: 'answerable' })),
  costing(100, say('Dave: answered again.')),
];

let fixture: SlackTallyFixture;
const threads: Record<string, string> = {};

const botTexts = (threadTs: string) =>
  fixture.slack
    .messages(ALLOWED_CHANNEL, threadTs)
    .filter((message) => message.user === fixture.slack.ids.botUserId)
    .map((message) => message.text);
const chatRequests = () => fixture.server.chatRequests.length;

/** Waits until tally posted `text` in the thread and its turn there is over; returns that text. */
async function turnEnded(threadTs: string, text: string): Promise<string> {
  return fixture.slack.waitFor(() => {
    const found = botTexts(threadTs).find((candidate) => candidate.includes(text));
    return found !== undefined && !fixture.service.tally.router.isWorking(fixture.threadKey(threadTs))
      ? found
      : undefined;
  }, 90_000);
}

/** The next 00:00 UTC after `ms`, as the refusal writes it. */
const nextMidnight = (ms: number) =>
  new Date((Math.floor(ms / 86_400_000) + 1) * 86_400_000).toISOString().slice(0, 10);

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  return sampleValue(parseExposition((await fixture.service.tally.metrics.render()).body), name, labels);
}

async function budgetRefusals(): Promise<Array<{ actor?: { user?: string; thread?: string }; rule?: string }>> {
  const records = await fixture.service.tally.auditLog.read({ limit: 100_000 });
  return records
    .map((record) => JSON.parse(record.text))
    .filter((record) => record.kind === 'message' && record.decision === 'refused' && record.reason === 'budget');
}

beforeAll(async () => {
  fixture = await startSlackTallyFixture(
    SCRIPT,
    { TALLY_BUDGET_TOKENS_PER_DAY: String(TOKENS_PER_DAY), TALLY_BUDGET_KERNEL_MINUTES_PER_DAY: '0.0001' },
    {
      async prepare(environment) {
        const path = join(environment.home, 'policy.yaml');
        await writeFile(
          path,
          `principals:
  analytics-room: { slack_channels: [${ALLOWED_CHANNEL}] }
  heavy-users: { slack_users: [${DAVE}] }
grants:
  - { to: [analytics-room], database: ${environment.database.name}, tables: ["*"] }
budgets:
  - { to: [heavy-users], tokens_per_day: 100000, kernel_minutes_per_day: 60 }
`,
        );
        return { TALLY_POLICY: path };
      },
    },
  );
}, 180_000);

afterAll(async () => {
  await fixture?.close();
});

describe('daily budgets on Slack', () => {
  it('lets a turn that crosses the token budget part-way finish, answer included', async () => {
    threads.alice = await fixture.slack.mention({ user: ALICE, channel: ALLOWED_CHANNEL, text: 'how many customers?' });
    await turnEnded(threads.alice, 'Alice: the churn table is counted.');
    // All four requests were made: the three that used the budget up, and the one after.
    expect(chatRequests()).toBe(4);
    expect(botTexts(threads.alice).join('\n')).not.toContain(REFUSED);
    expect(await fixture.service.tally.budgets.spent(ALICE, Date.now())).toEqual({ tokens: 1_600, kernelMs: 0 });
  }, 120_000);

  it('declines her next message without asking the model, naming the model tokens and the reset in UTC', async () => {
    const before = Date.now();
    await fixture.slack.reply({
      user: ALICE,
      channel: ALLOWED_CHANNEL,
      threadTs: threads.alice ?? '',
      text: 'and by contract?',
    });
    const refusal = await turnEnded(threads.alice ?? '', REFUSED);
    expect(refusal).toContain(`used up: 1,600 of your ${TOKENS_PER_DAY.toLocaleString('en')} model tokens for today`);
    const resetsAt = /It resets at (\d{4}-\d{2}-\d{2}) 00:00 UTC \(in (?:\d+ h)? ?(?:\d+ min)?\)/.exec(refusal)?.[1];
    expect([nextMidnight(before), nextMidnight(Date.now())]).toContain(resetsAt);
    expect(chatRequests()).toBe(4);
    expect(await metric('tally_refusals_total', { reason: 'budget' })).toBe(1);
    expect(await metric('tally_budget_spent_total', { resource: 'tokens' })).toBe(1_600);
    expect(await budgetRefusals()).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ user: ALICE, thread: fixture.threadKey(threads.alice ?? '') }),
        rule: 'model tokens',
      }),
    ]);
  }, 120_000);

  it('answers another person in the same channel, and never runs the declined message later', async () => {
    threads.bob = await fixture.slack.mention({ user: BOB, channel: ALLOWED_CHANNEL, text: 'what can you do?' });
    await turnEnded(threads.bob, 'Bob: here is your answer.');
    expect(botTexts(threads.bob).join('\n')).not.toContain(REFUSED);
    await fixture.service.tally.router.idle();
    // Bob's two requests, and none for Alice's declined message.
    expect(chatRequests()).toBe(6);
    const aliceThread = fixture.threadKey(threads.alice ?? '');
    expect(await new Inbox(fixture.service.tally.store).unfinishedThreads()).not.toContain(aliceThread);
    const session = await fixture.service.tally.store.get<SessionRecord>(sessionKey(aliceThread));
    const conversation = JSON.stringify(session?.conversation.messages);
    expect(conversation).toContain('how many customers?');
    expect(conversation).not.toContain('and by contract?');
    expect(botTexts(threads.alice ?? '').filter((text) => text.includes(REFUSED))).toHaveLength(1);
    expect(await metric('tally_budget_spent_total', { resource: 'tokens' })).toBe(1_800);
  }, 120_000);

  it('declines the next message of someone whose kernel time ran out, naming kernel minutes', async () => {
    threads.carol = await fixture.slack.mention({ user: CAROL, channel: ALLOWED_CHANNEL, text: 'rest a little' });
    await turnEnded(threads.carol, 'Carol: the kernel rested.');
    const spent = await fixture.service.tally.budgets.spent(CAROL, Date.now());
    expect(spent.tokens).toBe(150);
    expect(spent.kernelMs).toBeGreaterThanOrEqual(100);
    await fixture.slack.reply({ user: CAROL, channel: ALLOWED_CHANNEL, threadTs: threads.carol, text: 'once more' });
    const refusal = await turnEnded(threads.carol, REFUSED);
    expect(refusal).toMatch(/used up: [\d.]+ of your 0\.0001 kernel minutes for today\. It resets at [\d-]+ 00:00 UTC/);
    expect(chatRequests()).toBe(9);
    expect(await metric('tally_refusals_total', { reason: 'budget' })).toBe(2);
    expect(await metric('tally_budget_spent_total', { resource: 'kernel seconds' })).toBeGreaterThanOrEqual(0.1);
    expect((await budgetRefusals()).map((record) => [record.actor?.user, record.rule])).toEqual([
      [ALICE, 'model tokens'],
      [CAROL, 'kernel minutes'],
    ]);
  }, 120_000);

  it("answers someone past both default budgets whose set has larger ones in the policy's budgets", async () => {
    threads.dave = await fixture.slack.mention({ user: DAVE, channel: ALLOWED_CHANNEL, text: 'rest as well' });
    await turnEnded(threads.dave, 'Dave: the kernel rested too.');
    const spent = await fixture.service.tally.budgets.spent(DAVE, Date.now());
    expect(spent.tokens).toBeGreaterThan(TOKENS_PER_DAY);
    expect(spent.kernelMs / 60_000).toBeGreaterThan(0.0001);
    await fixture.slack.reply({ user: DAVE, channel: ALLOWED_CHANNEL, threadTs: threads.dave, text: 'and again?' });
    await turnEnded(threads.dave, 'Dave: answered again.');
    expect(botTexts(threads.dave).join('\n')).not.toContain(REFUSED);
    expect(chatRequests()).toBe(14);
    expect(fixture.server.remainingSteps).toBe(0);
    expect(await metric('tally_refusals_total', { reason: 'budget' })).toBe(2);
    expect(await metric('tally_budget_spent_total', { resource: 'tokens' })).toBe(3_950);
  }, 120_000);
});
