/**
 * Slack user groups for the access policy, through the real Web API client against the Slack
 * stand-in: member lists are read with `usergroups.users.list`, kept for the TTL and read again
 * after it, a failed read keeps the last list (a group never read has no members) and warns, and
 * lookups of a group being read share one request. Then the adapter: every inbound (mention, DM,
 * edit, `/tally`, button, reaction, form) says where it was sent and which configured groups the
 * person is in, and `groupsOf` answers the same.
 */
import { Writable } from 'node:stream';
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SlackAdapter, type SlackAdapterOptions } from '../../adapters/slack/slack-adapter.js';
import { SlackUsergroups } from '../../adapters/slack/slack-usergroups.js';
import { createLogger } from '../../src/base/logger.js';
import { ACTION_IDS, type Inbound } from '../../src/ports/chat.js';
import { cleanUp } from '../support/clean-up.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';

const ANALYSTS = 'S0ANALYSTS';
const FINANCE = 'S0FINANCE';
const OTHERS = 'S0OTHERS';
const ANN = 'U1ANN';
const BOB = 'U2BOB';
const CAT = 'U3CAT';
const CHANNEL = 'C0GENERAL';
const TTL_MS = 60_000;

let slack: SlackStandIn;
let logLines: string[];
const closers: Array<() => Promise<void>> = [];

beforeEach(async () => {
  slack = await startSlackStandIn();
  logLines = [];
  slack.setUsergroup(ANALYSTS, [ANN, BOB]);
  slack.setUsergroup(FINANCE, [BOB]);
  slack.setUsergroup(OTHERS, [ANN, CAT]);
});

afterEach(async () => {
  await cleanUp(...closers.splice(0), () => slack.close());
});

function logger() {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  return createLogger({ level: 'warn', destination });
}

const warnings = () => logLines.map((line) => JSON.parse(line) as Record<string, unknown>);

/** Groups `ANALYSTS` and `FINANCE` (not `OTHERS`) on a clock the test moves. */
function resolver(usergroups: readonly string[] = [ANALYSTS, FINANCE]) {
  const clock = { now: 1_000_000 };
  const client = new webApi.WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  const groups = new SlackUsergroups({ client, usergroups, ttlMs: TTL_MS, now: () => clock.now, logger: logger() });
  return { groups, clock };
}

describe('SlackUsergroups', () => {
  it("names the configured groups a person is in, and never looks at the others'", async () => {
    const { groups } = resolver();
    expect(await groups.groupsOf(ANN)).toEqual([ANALYSTS]);
    expect(await groups.groupsOf(BOB)).toEqual([ANALYSTS, FINANCE]);
    expect(await groups.groupsOf(CAT)).toEqual([]);
    expect([slack.usergroupCalls(ANALYSTS), slack.usergroupCalls(FINANCE), slack.usergroupCalls(OTHERS)]).toEqual([
      1, 1, 0,
    ]);
  });

  it('keeps a member list for the TTL and reads it again after it', async () => {
    const { groups, clock } = resolver([ANALYSTS]);
    expect(await groups.groupsOf(CAT)).toEqual([]);
    slack.setUsergroup(ANALYSTS, [CAT]);
    clock.now += TTL_MS - 1;
    expect(await groups.groupsOf(CAT)).toEqual([]);
    expect(slack.usergroupCalls(ANALYSTS)).toBe(1);
    clock.now += 1;
    expect(await groups.groupsOf(CAT)).toEqual([ANALYSTS]);
    expect(await groups.groupsOf(ANN)).toEqual([]);
    expect(slack.usergroupCalls(ANALYSTS)).toBe(2);
  });

  it('keeps the last list when a refresh fails, warns naming the group and the error, and tries again later', async () => {
    const { groups, clock } = resolver([ANALYSTS]);
    expect(await groups.groupsOf(ANN)).toEqual([ANALYSTS]);
    slack.setUsergroup(ANALYSTS, [CAT]);
    slack.failNext('usergroups.users.list', { error: 'ratelimited' });
    clock.now += TTL_MS;
    expect(await groups.groupsOf(ANN)).toEqual([ANALYSTS]);
    expect(slack.usergroupCalls(ANALYSTS)).toBe(2);
    expect(warnings()).toEqual([
      expect.objectContaining({
        level: 40,
        usergroup: ANALYSTS,
        slackError: 'ratelimited',
        keptMembers: 2,
        msg: 'could not refresh a Slack user group; keeping its last known members',
      }),
    ]);
    // Not on every message: the failed read waits before it is tried again.
    expect(await groups.groupsOf(CAT)).toEqual([]);
    expect(slack.usergroupCalls(ANALYSTS)).toBe(2);
    clock.now += 30_000;
    expect(await groups.groupsOf(CAT)).toEqual([ANALYSTS]);
    expect(await groups.groupsOf(ANN)).toEqual([]);
    expect(slack.usergroupCalls(ANALYSTS)).toBe(3);
  });

  it('counts a group never read as having no members, and says what to change', async () => {
    slack.failAlways('usergroups.users.list', { error: 'missing_scope' });
    const { groups } = resolver([ANALYSTS, 'S0GONE']);
    expect(await groups.groupsOf(ANN)).toEqual([]);
    slack.failAlways('usergroups.users.list', undefined);
    expect(warnings()).toEqual([
      expect.objectContaining({
        usergroup: ANALYSTS,
        slackError: 'missing_scope',
        hint: expect.stringContaining('usergroups:read'),
        msg: 'could not read a Slack user group; nobody counts as in it',
      }),
      expect.objectContaining({ usergroup: 'S0GONE', slackError: 'missing_scope' }),
    ]);
    const { groups: unknown } = resolver(['S0GONE']);
    expect(await unknown.groupsOf(ANN)).toEqual([]);
    expect(warnings().at(-1)).toMatchObject({ usergroup: 'S0GONE', slackError: 'no_such_subteam' });
  });

  it('shares one request among lookups of a group that is being read', async () => {
    const { groups } = resolver();
    const answers = await Promise.all([ANN, BOB, CAT, ANN, BOB].map((user) => groups.groupsOf(user)));
    expect(answers).toEqual([[ANALYSTS], [ANALYSTS, FINANCE], [], [ANALYSTS], [ANALYSTS, FINANCE]]);
    expect([slack.usergroupCalls(ANALYSTS), slack.usergroupCalls(FINANCE)]).toEqual([1, 1]);
  });
});

/** The adapter in Socket Mode against the stand-in, collecting what it hands to tally. */
async function startAdapter(options: Partial<SlackAdapterOptions> = {}) {
  const adapter = new SlackAdapter({
    botToken: slack.botToken,
    appToken: slack.appToken,
    apiUrl: slack.apiUrl,
    minIntervalMs: 0,
    retries: 0,
    logger: logger(),
    ...options,
  });
  const inbounds: Inbound[] = [];
  adapter.onInbound(async (inbound) => {
    inbounds.push(inbound);
  });
  closers.push(() => adapter.stop());
  await adapter.start();
  await slack.connected();
  const next = (probe: (inbound: Inbound) => boolean) => slack.waitFor(() => inbounds.find(probe));
  return { adapter, inbounds, next };
}

describe('the Slack adapter with user groups', () => {
  it('says on every inbound where it was sent and which configured groups the person is in', async () => {
    const { adapter, next } = await startAdapter({ usergroups: [ANALYSTS, FINANCE], usergroupTtlMs: TTL_MS });
    const ts = await slack.mention({ user: ANN, channel: CHANNEL, text: 'how many rows?' });
    const mention = await next((inbound) => inbound.text === 'how many rows?');
    expect(mention.user).toEqual({ id: ANN, groups: [ANALYSTS] });
    expect(mention.place).toEqual({ channel: CHANNEL, dm: false });

    await slack.directMessage({ user: CAT, text: 'just me' });
    const direct = await next((inbound) => inbound.text === 'just me');
    expect(direct.user).toEqual({ id: CAT, groups: [] });
    expect(direct.place).toEqual({ channel: slack.imChannel(CAT), dm: true });

    await slack.editMessage({ user: ANN, channel: CHANNEL, ts, text: `<@${slack.ids.botUserId}> how many columns?` });
    const edit = await next((inbound) => inbound.edited === true);
    expect([edit.user.groups, edit.place]).toEqual([[ANALYSTS], { channel: CHANNEL, dm: false }]);

    await slack.slashCommand({ user: BOB, channel: CHANNEL, command: '/tally', text: 'What drives churn?' });
    const command = await next((inbound) => inbound.text === 'What drives churn?');
    expect([command.user.groups, command.place]).toEqual([[ANALYSTS, FINANCE], { channel: CHANNEL, dm: false }]);

    const threadKey = mention.threadKey;
    const question = await adapter.post(threadKey, { kind: 'question', text: 'Which year?', choices: ['2024'] });
    await slack.click({ user: BOB, channel: CHANNEL, messageTs: question.id, actionId: `${ACTION_IDS.choice}.0` });
    const choice = await next((inbound) => inbound.action?.id === ACTION_IDS.choice);
    expect([choice.user.groups, choice.place]).toEqual([[ANALYSTS, FINANCE], { channel: CHANNEL, dm: false }]);

    const review = await adapter.post(threadKey, {
      kind: 'review',
      id: 's1',
      version: 1,
      title: 'Rows',
      markdown: 'There are 7,043 rows.',
      figures: [],
      cells: [],
      controls: ['accept', 'revise', 'discard'],
    });
    await slack.react({ user: ANN, channel: CHANNEL, ts: review.id, reaction: 'white_check_mark' });
    const accept = await next((inbound) => inbound.action?.id === ACTION_IDS.accept);
    expect([accept.user.groups, accept.place]).toEqual([[ANALYSTS], { channel: CHANNEL, dm: false }]);

    await slack.click({
      user: CAT,
      channel: CHANNEL,
      messageTs: review.id,
      actionId: ACTION_IDS.revise,
      value: 's1@1',
    });
    const form = await slack.waitFor(() => slack.views()[0]);
    await slack.submitView({ user: CAT, viewId: form.id, values: { feedback: { feedback: 'Per year, please.' } } });
    const revise = await next((inbound) => inbound.action?.id === ACTION_IDS.revise);
    expect([revise.user, revise.place]).toEqual([
      { id: CAT, groups: [] },
      { channel: CHANNEL, dm: false },
    ]);

    expect(await adapter.groupsOf(BOB)).toEqual([ANALYSTS, FINANCE]);
    // Eight lookups within the TTL: each group was read once.
    expect([slack.usergroupCalls(ANALYSTS), slack.usergroupCalls(FINANCE), slack.usergroupCalls(OTHERS)]).toEqual([
      1, 1, 0,
    ]);
  });

  it('carries no groups, and reads none, when the policy names no user groups', async () => {
    const { adapter, next } = await startAdapter();
    await slack.mention({ user: ANN, channel: CHANNEL, text: 'how many rows?' });
    const mention = await next((inbound) => inbound.text === 'how many rows?');
    expect(mention.user).toEqual({ id: ANN });
    expect(mention.place).toEqual({ channel: CHANNEL, dm: false });
    expect(await adapter.groupsOf(ANN)).toEqual([]);
    expect(slack.callsTo('usergroups.users.list')).toHaveLength(0);
  });
});
