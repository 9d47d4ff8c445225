/**
 * The Discord stand-in's autocomplete and message edits against the unmodified discord.js Client:
 * typing into an option that autocompletes arrives as an AutocompleteInteraction whose `respond()`
 * is recorded as callback type 8 with its time; Discord's rules hold (choices and autocomplete never
 * together, at most 25 choices, only type 8, within 3 s); a person's edit arrives as `messageUpdate`
 * with the old and new text; every edit of a message is kept with its time.
 */
import { once } from 'node:events';
import { Client, Events, GatewayIntentBits, type Message, Partials, SlashCommandBuilder } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp } from '../support/clean-up.js';
import { type DiscordStandIn, startDiscordStandIn } from '../support/discord/discord-stand-in.js';

const ALICE = '1300000000000000100';
const ASK = new SlashCommandBuilder()
  .setName('ask')
  .setDescription('Ask')
  .addStringOption((option) =>
    option.setName('question').setDescription('What').setRequired(true).setAutocomplete(true),
  )
  .addStringOption((option) => option.setName('tone').setDescription('How').addChoices({ name: 'dry', value: 'dry' }));

let discord: DiscordStandIn;
let client: Client | undefined;

afterEach(async () => {
  await cleanUp(
    () => client?.destroy(),
    () => discord?.close(),
  );
  client = undefined;
});

async function start(options: { initialResponseMs?: number } = {}): Promise<Client> {
  discord = await startDiscordStandIn({ users: [{ id: ALICE, username: 'alice' }], ...options });
  client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
    partials: [Partials.Message, Partials.Channel],
    rest: { api: discord.apiUrl, retries: 0, timeout: 5000 },
  });
  const ready = once(client, Events.ClientReady);
  await client.login(discord.token);
  await ready;
  await client.application?.commands.set([ASK.toJSON()], discord.ids.guildId);
  return client;
}

describe('Discord stand-in: autocomplete and edits', () => {
  it('delivers typing as an autocomplete interaction and records the type 8 answer with its time', async () => {
    const bot = await start();
    const seen: Array<{ name: string; value: string }> = [];
    bot.on(Events.InteractionCreate, (interaction) => {
      if (!interaction.isAutocomplete()) return;
      const focused = interaction.options.getFocused(true);
      seen.push({ name: focused.name, value: focused.value });
      const many = Array.from({ length: 30 }, (_, index) => ({ name: `q${index}`, value: `q${index}` }));
      void interaction
        .respond(focused.value === 'many' ? many : [{ name: 'Rows per month?', value: 'rows' }])
        .catch(() => undefined); // refused: read back from the stand-in below
    });
    const typed = await discord.autocomplete({
      user: ALICE,
      channel: discord.channelId,
      name: 'ask',
      focused: 'question',
      typed: 'row',
    });
    const [answer] = await discord.waitFor(
      () => discord.interactionResponses(typed.id).length > 0 && discord.interactionResponses(typed.id),
    );
    expect(seen).toEqual([{ name: 'question', value: 'row' }]);
    expect(answer).toMatchObject({
      kind: 'callback',
      type: 8,
      status: 204,
      body: { data: { choices: [{ name: 'Rows per month?', value: 'rows' }] } },
    });
    const created = discord.interactions().find((interaction) => interaction.id === typed.id)?.createdAt ?? 0;
    expect((answer?.at ?? Number.POSITIVE_INFINITY) - created).toBeLessThan(3000);

    const tooMany = await discord.autocomplete({
      user: ALICE,
      channel: discord.channelId,
      name: 'ask',
      focused: 'question',
      typed: 'many',
    });
    const refused = await discord.waitFor(() => discord.interactionResponses(tooMany.id)[0]);
    expect(refused).toMatchObject({ type: 8, status: 400, code: 50035 });
    await expect(
      discord.autocomplete({ user: ALICE, channel: discord.channelId, name: 'ask', focused: 'tone', typed: 'd' }),
    ).rejects.toThrow(/does not autocomplete/);
  });

  it('refuses any other answer to an autocomplete, and one after the window', async () => {
    const bot = await start({ initialResponseMs: 300 });
    bot.on(Events.InteractionCreate, (interaction) => {
      if (!interaction.isAutocomplete()) return;
      if (interaction.options.getFocused() === 'late') {
        setTimeout(() => void interaction.respond([]).catch(() => undefined), 500);
        return;
      }
      void bot.rest
        .post(`/interactions/${interaction.id}/${interaction.token}/callback`, {
          body: { type: 4, data: { content: 'hi' } },
          auth: false,
        })
        .catch(() => undefined);
    });
    const base = { user: ALICE, channel: discord.channelId, name: 'ask', focused: 'question' };
    const wrong = await discord.autocomplete({ ...base, typed: 'x' });
    expect(await discord.waitFor(() => discord.interactionResponses(wrong.id)[0])).toMatchObject({
      type: 4,
      status: 400,
    });
    const late = await discord.autocomplete({ ...base, typed: 'late' });
    expect(await discord.waitFor(() => discord.interactionResponses(late.id)[0])).toMatchObject({
      type: 8,
      status: 404,
      code: 10062,
    });
  });

  it('refuses a command whose option has both choices and autocomplete', async () => {
    const bot = await start();
    const both = {
      name: 'bad',
      description: 'Bad',
      options: [{ name: 'x', description: 'x', type: 3, autocomplete: true, choices: [{ name: 'a', value: 'a' }] }],
    };
    await expect(bot.application?.commands.set([both], discord.ids.guildId)).rejects.toMatchObject({ code: 50035 });
  });

  it("delivers a person's edit as messageUpdate with old and new text, and keeps every edit with its time", async () => {
    const bot = await start();
    const updates: Array<[string | null, string]> = [];
    bot.on(Events.MessageUpdate, (before, after) => void updates.push([before.content, (after as Message).content]));
    const id = await discord.message({ user: ALICE, channel: discord.channelId, content: 'rows per month?' });
    await discord.waitFor(() => bot.channels.cache.get(discord.channelId));
    await discord.editMessage({ user: ALICE, channel: discord.channelId, messageId: id, content: 'rows per week?' });
    await discord.waitFor(() => updates.length > 0);
    expect(updates).toEqual([['rows per month?', 'rows per week?']]);
    expect(discord.findMessage(id)?.edited_timestamp).not.toBeNull();
    expect(discord.edits(id)).toEqual([{ at: expect.any(Number), content: 'rows per week?' }]);
    await expect(
      discord.editMessage({ user: '1300000000000000199', channel: discord.channelId, messageId: id, content: 'mine' }),
    ).rejects.toThrow(/not 1300000000000000199/);

    const channel = bot.channels.cache.get(discord.channelId);
    const sent = channel?.isSendable() ? await channel.send('one') : undefined;
    await sent?.edit('two');
    await sent?.edit('three');
    expect(discord.edits(sent?.id ?? '').map((edit) => edit.content)).toEqual(['two', 'three']);
  });
});
