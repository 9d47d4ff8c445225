/**
 * What a Discord thread shows while tally works, end to end (discord.js against the Discord
 * stand-in, the real sandbox and MariaDB, the scripted model): one progress message per turn, edited
 * in place at most once a second and ending with every step; suggestions while typing `/analyze` and
 * `/settings`, answered inside Discord's 3-second window; edited messages, queued (run as edited) or
 * already run (offered again with a button).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestOfTurnMessage } from '../../src/agent/turn-message.js';
import { callTool, type ScriptContext, say, slow } from '../../src/demo/scripted-model-server.js';
import { ACTION_IDS } from '../../src/ports/chat.js';
import type { DiscordMessage } from '../support/discord/discord-model.js';
import { type DiscordTallyFixture, startDiscordTallyFixture } from '../support/discord-tally-fixture.js';

const OWNER = '1300000000000000101';
const QUESTION = 'How are customers split by contract? Plan it first.';
const PROGRESS_HEADER = /^\*\*(Working…|Done|Stopped|Waiting for you)\*\* · /;
/** Discord's window for the first answer to an interaction. */
const WINDOW_MS = 3000;

/** The latest person's request the model was sent (without the tables found for it). */
function asked(context: ScriptContext): string {
  const content = context.messages.findLast((message) => message.role === 'user')?.content;
  return requestOfTurnMessage(typeof content === 'string' ? content : JSON.stringify(content));
}
const youAsked = (context: ScriptContext) => say(`You asked: ${asked(context)}`);

let fixture: DiscordTallyFixture;
let threadId = '';

const discord = () => fixture.discord;
const botMessages = () =>
  discord()
    .messages(threadId)
    .filter((message) => message.author.id === discord().ids.botUserId);
const find = (marker: string) => botMessages().findLast((message: DiscordMessage) => message.content.includes(marker));

beforeAll(async () => {
  fixture = await startDiscordTallyFixture([
    // The planned turn: a load, a cell that fails and its repair, slow enough for several edits.
    callTool('triage', { verdict: 'answerable', multi_step: true }),
    say('1. Load the contracts.\n2. Count customers per contract.'),
    callTool('load_dataframe', {
      sql: 'SELECT customerID, Contract FROM user_payments',
      name: 'payments',
      plan_step: 1,
    }),
    slow(1200, callTool('run_python', { code: 'payments["Contrat"].value_counts()', plan_step: 2 })),
    (context) =>
      context.lastToolResult?.content.includes("KeyError: 'Contrat'")
        ? slow(1200, callTool('run_python', { code: 'payments["Contract"].value_counts().to_dict()', plan_step: 2 }))
        : say('the traceback did not arrive'),
    say('Month-to-month contracts lead.'),
    // A long turn, a message queued behind it and edited while it waits.
    callTool('triage', { verdict: 'answerable' }),
    slow(2500, say('Took my time.')),
    callTool('triage', { verdict: 'answerable' }),
    youAsked,
    // The long turn's message, edited after it ran and run again.
    callTool('triage', { verdict: 'answerable' }),
    youAsked,
  ]);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

describe('tally on Discord while it works', () => {
  it('shows a planned turn in one progress message, edited in place at most once a second, ending with every step', async () => {
    const before = discord().threads().length;
    await discord().slashCommand({
      user: OWNER,
      channel: discord().channelId,
      name: 'analyze',
      options: { question: QUESTION },
    });
    threadId = (await discord().waitFor(() => discord().threads()[before], 30_000)).id;
    const answer = await discord().waitFor(() => find('Month-to-month contracts lead.'), 60_000);
    const progress = await discord().waitFor(
      () => botMessages().find((message) => message.content.startsWith('**Done**')),
      10_000,
    );

    // Posted once, then only edited.
    const shown = botMessages().filter((message) => PROGRESS_HEADER.test(message.content));
    expect(shown.map((message) => message.id)).toEqual([progress.id]);
    const posts = discord()
      .callsTo('POST', `/channels/${threadId}/messages`)
      .filter((call) => PROGRESS_HEADER.test(String((call.body as { content?: unknown }).content ?? '')));
    expect(posts).toHaveLength(1);
    const patches = () => discord().callsTo('PATCH', `/channels/${threadId}/messages/${progress.id}`);
    await discord().waitFor(() => patches().every((call) => call.status !== 0)); // all answered
    const edits = patches().filter((call) => call.status === 200);
    expect(edits.length).toBeGreaterThanOrEqual(2);
    expect(discord().edits(progress.id)).toHaveLength(edits.length);
    // At most one edit a second: each request arrives a second or more after the one before.
    const times = [posts[0]?.at ?? 0, ...edits.map((call) => call.at)];
    const gaps = times.slice(1).map((at, index) => at - (times[index] ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(990);

    const lines = progress.content.split('\n');
    expect(lines).toContain('☑ 1. Load the contracts.');
    expect(lines).toContain('☑ 2. Count customers per contract.');
    expect(lines.some((line) => /^✓ Load payments \([\d,]+ rows\)$/.test(line))).toBe(true);
    expect(lines).toContain("✗ Run Python — KeyError: 'Contrat'");
    expect(lines).toContain('↻ Run Python — repaired');
    expect(progress.content).not.toMatch(/[⏳◦☐▶]/);
    // The answer follows the progress message; the plan is not posted as text.
    expect(BigInt(answer.id)).toBeGreaterThan(BigInt(progress.id));
    expect(botMessages().some((message) => /^\**Plan:/.test(message.content))).toBe(false);
  });

  it('suggests recent and starter questions while /analyze is typed, and setting values, within the window', async () => {
    const typing = async (name: string, focused: string, typed: string) => {
      const handle = await discord().autocomplete({ user: OWNER, channel: discord().channelId, name, focused, typed });
      const [answer] = await discord().waitFor(() => {
        const responses = discord().interactionResponses(handle.id);
        return responses.length > 0 && responses;
      });
      const created =
        discord()
          .interactions()
          .find((interaction) => interaction.id === handle.id)?.createdAt ?? 0;
      expect(answer).toMatchObject({ kind: 'callback', type: 8, status: 204 });
      expect((answer?.at ?? Number.POSITIVE_INFINITY) - created).toBeLessThan(WINDOW_MS);
      const body = answer?.body as { data?: { choices?: Array<{ name: string }> } } | undefined;
      return (body?.data?.choices ?? []).map((choice) => choice.name);
    };
    expect(await typing('analyze', 'question', 'by contract')).toEqual([QUESTION]);
    expect(await typing('analyze', 'question', 'churn')).toContain('What drives churn?');
    expect(await typing('analyze', 'question', 'no such words')).toEqual([]);
    expect(await typing('settings', 'approve', 'al')).toEqual(['always — ask before every cell']);
  });

  it('runs a queued message as edited', async () => {
    const threadKey = `discord:${discord().ids.guildId}:${threadId}`;
    const requests = fixture.server.chatRequests.length;
    await discord().message({ user: OWNER, channel: threadId, content: 'Take your time with this one' });
    await discord().waitFor(() => fixture.server.chatRequests.length >= requests + 2, 30_000); // the slow step runs
    const queued = await discord().message({ user: OWNER, channel: threadId, content: 'What is 1 + 1?' });
    // Edited once tally has it waiting: its inbox holds the message.
    const inbox = () => fixture.service.tally.store.range<{ inbound: { messageId?: string } }>(`inbox:${threadKey}`);
    for (let waited = 0; !(await inbox()).some((item) => item.inbound.messageId === queued); waited += 20) {
      if (waited > 10_000) throw new Error('tally never took the queued message into its inbox');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await discord().editMessage({ user: OWNER, channel: threadId, messageId: queued, content: 'What is 2 + 2?' });
    const answered = await discord().waitFor(() => find('You asked:'), 60_000);
    expect(find('Took my time.')).toBeDefined();
    expect(answered.content).toContain('What is 2 + 2?');
    expect(JSON.stringify(fixture.server.chatRequests.map((request) => request.body))).not.toContain('What is 1 + 1?');
  });

  it('offers to run an edited message that already ran, and runs it on the click', async () => {
    const ran = discord()
      .messages(threadId)
      .find((message) => message.content === 'Take your time with this one');
    await discord().editMessage({
      user: OWNER,
      channel: threadId,
      messageId: ran?.id ?? '',
      content: 'Take your time with this one, twice',
    });
    const offer = await discord().waitFor(() => find('You edited a message that already ran'), 60_000);
    expect(offer.content).toContain('> Take your time with this one, twice');
    const button = (offer.components as Array<{ components: Array<{ custom_id: string; label: string }> }>)[0]
      ?.components[0];
    expect(button).toMatchObject({ custom_id: `${ACTION_IDS.rerun}|${ran?.id}`, label: 'Run the edited version' });
    await discord().click({ user: OWNER, channel: threadId, messageId: offer.id, customId: button?.custom_id ?? '' });
    const answered = await discord().waitFor(() => find('You asked: Take your time with this one, twice'), 60_000);
    expect(answered).toBeDefined();
    expect(discord().findMessage(offer.id)?.components).toEqual([]); // the button goes once clicked
  });
});
