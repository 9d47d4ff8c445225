/**
 * Who and where, as the Discord adapter reports them for the access policy: every inbound carries the
 * member's role ids (`user.groups`) and its place (a thread counts as the channel it hangs off), and
 * `groupsOf` asks Discord for a member's roles. The adapter alone against the Discord stand-in.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../../adapters/discord/discord-adapter.js';
import { createLogger } from '../../src/base/logger.js';
import { ACTION_IDS, type Inbound } from '../../src/ports/chat.js';
import { cleanUp } from '../support/clean-up.js';
import { type DiscordStandIn, startDiscordStandIn } from '../support/discord/discord-stand-in.js';

const ALICE = '1300000000000000101';
const BOB = '1300000000000000102';
const NOBODY = '1300000000000000199';
const ANALYSTS = '1300000000000000900';
const FINANCE = '1300000000000000901';
const CHANNEL = '1300000000000000500';

let discord: DiscordStandIn | undefined;
let adapter: DiscordAdapter | undefined;

afterEach(async () => {
  await cleanUp(
    () => adapter?.stop(),
    () => discord?.close(),
  );
  adapter = undefined;
  discord = undefined;
});

/** The stand-in with Alice (analysts) and Bob (finance), and a started adapter collecting inbounds and warnings. */
async function start() {
  const standIn = await startDiscordStandIn({
    channels: [{ id: CHANNEL, name: 'analytics' }],
    roles: [
      { id: ANALYSTS, name: 'analysts' },
      { id: FINANCE, name: 'finance' },
    ],
    users: [
      { id: ALICE, username: 'alice', roles: [ANALYSTS] },
      { id: BOB, username: 'bob', roles: [FINANCE] },
    ],
  });
  discord = standIn;
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const discordAdapter = new DiscordAdapter({
    token: standIn.token,
    apiUrl: standIn.apiUrl,
    guildId: standIn.ids.guildId,
    retries: 0,
    logger: createLogger({ level: 'warn', destination }),
  });
  adapter = discordAdapter;
  const inbounds: Inbound[] = [];
  discordAdapter.onInbound(async (inbound) => {
    inbounds.push(inbound);
  });
  await discordAdapter.start();
  await standIn.connected();
  return { discord: standIn, adapter: discordAdapter, inbounds, logLines };
}

describe('the Discord adapter names who and where', () => {
  it('gives messages, clicks, forms, reactions and commands the member roles and the channel a thread hangs off', async () => {
    const { discord, adapter, inbounds } = await start();
    const place = { channel: CHANNEL, dm: false };

    const opening = await discord.message({ user: ALICE, channel: CHANNEL, content: 'rows?', mentionsBot: true });
    const first = await discord.waitFor(() => inbounds[0]);
    expect(first).toMatchObject({ messageId: opening, user: { id: ALICE, groups: [ANALYSTS] }, place });
    const threadId = first.threadKey.split(':')[2] ?? '';
    expect(threadId).not.toBe(CHANNEL);

    await discord.message({ user: BOB, channel: threadId, content: 'per month, please' });
    expect(await discord.waitFor(() => inbounds[1])).toMatchObject({ user: { id: BOB, groups: [FINANCE] }, place });

    // Roles changed since: the next event carries the new ones.
    discord.setRoles(BOB, [FINANCE, ANALYSTS]);
    const question = await adapter.post(first.threadKey, { kind: 'question', text: 'Which year?', choices: ['2024'] });
    await discord.click({ user: BOB, channel: threadId, messageId: question.id, customId: `${ACTION_IDS.choice}|1` });
    expect(await discord.waitFor(() => inbounds[2])).toMatchObject({
      action: { id: ACTION_IDS.choice, value: '1' },
      user: { id: BOB, groups: [FINANCE, ANALYSTS] },
      place,
    });

    const cell = { kind: 'approval', id: 'c1', language: 'sql', code: 'SELECT 1', reason: 'risky' } as const;
    const approval = await adapter.post(first.threadKey, cell);
    const edit = await discord.click({
      user: ALICE,
      channel: threadId,
      messageId: approval.id,
      customId: `${ACTION_IDS.edit}|c1`,
    });
    await discord.waitFor(() => discord.interactionResponses(edit.id).some((response) => response.type === 9));
    await discord.submitModal({
      user: ALICE,
      channel: threadId,
      customId: 'tally.edit|c1',
      fields: { code: 'SELECT 2' },
    });
    expect(await discord.waitFor(() => inbounds[3])).toMatchObject({
      action: { id: ACTION_IDS.edit, value: 'c1' },
      text: 'SELECT 2',
      user: { id: ALICE, groups: [ANALYSTS] },
      place,
    });

    const section = { kind: 'review', id: 's1', version: 1, title: 'Churn', markdown: 'Churn is 26%.' } as const;
    const review = await adapter.post(first.threadKey, { ...section, figures: [], cells: [], controls: ['accept'] });
    await discord.react({ user: BOB, channel: threadId, messageId: review.id, emoji: '✅' });
    expect(await discord.waitFor(() => inbounds[4])).toMatchObject({
      action: { id: ACTION_IDS.accept, value: 's1@1' },
      user: { id: BOB, groups: [FINANCE, ANALYSTS] },
      place,
    });

    await discord.slashCommand({ user: ALICE, channel: CHANNEL, name: 'analyze', options: { question: 'churn?' } });
    const analyze = await discord.waitFor(() => inbounds[5]);
    expect(analyze).toMatchObject({ text: 'churn?', user: { id: ALICE, groups: [ANALYSTS] }, place });
    expect(analyze.threadKey).not.toBe(first.threadKey);
  });

  it('answers groupsOf from Discord: current roles, none for someone who is not a member', async () => {
    const { discord, adapter, logLines } = await start();
    const channel = `discord:${discord.ids.guildId}:${CHANNEL}`;
    const memberLookups = () => discord.callsTo('GET', '/guilds/:guildId/members/:userId');

    expect(await adapter.groupsOf(ALICE, channel)).toEqual([ANALYSTS]);
    // Not from a cache: without member updates on the gateway, a cached member's roles go stale.
    discord.setRoles(ALICE, [FINANCE]);
    expect(await adapter.groupsOf(ALICE, channel)).toEqual([FINANCE]);
    expect(memberLookups()).toMatchObject([{ status: 200 }, { status: 200 }]);

    expect(await adapter.groupsOf(NOBODY, channel)).toEqual([]);
    expect(memberLookups().at(-1)).toMatchObject({ status: 404, code: 10007 });
    expect(logLines.join('')).toContain('discord member unknown');

    expect(await adapter.groupsOf(ALICE, `discord:1300000000000000999:${CHANNEL}`)).toEqual([]);
    await expect(adapter.groupsOf(ALICE, 'slack:T1:C1')).rejects.toThrow(/not a Discord channel key/);
  });
});
