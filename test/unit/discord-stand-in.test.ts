/**
 * The Discord stand-in against the unmodified discord.js v14 Client: login over REST + gateway,
 * commands, deferred replies, threads, files, buttons, modals, reactions with partials, typing,
 * rate limits and faults, Discord's interaction rules, intents, and resuming after a reconnect.
 */
import { once } from 'node:events';
import {
  ActionRowBuilder,
  AttachmentBuilder,
  ButtonBuilder,
  ButtonStyle,
  ChannelType,
  Client,
  type ClientOptions,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  type Interaction,
  LabelBuilder,
  type Message,
  MessageFlags,
  ModalBuilder,
  Partials,
  type RateLimitData,
  Routes,
  type SendableChannels,
  SlashCommandBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp } from '../support/clean-up.js';
import {
  type DiscordStandIn,
  type DiscordStandInOptions,
  startDiscordStandIn,
} from '../support/discord/discord-stand-in.js';

const ALICE = '1300000000000000100';
/** A 1×1 PNG. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d8a83c0000000049454e44ae426082',
  'hex',
);
const INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.GuildMessageReactions,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
];
const ANALYZE = new SlashCommandBuilder()
  .setName('analyze')
  .setDescription('Analyze a question')
  .addStringOption((option) => option.setName('question').setDescription('What to ask').setRequired(true));

let discord: DiscordStandIn;
const clients: Client[] = [];

afterEach(async () => {
  await cleanUp(...clients.splice(0).map((client) => () => client.destroy()), () => discord?.close());
});

/** Starts the stand-in and a logged-in discord.js Client (handlers registered before login); both closed after each test. */
async function start(
  register: (client: Client) => void = () => undefined,
  options: { standIn?: DiscordStandInOptions; client?: Partial<ClientOptions> } = {},
): Promise<Client> {
  discord = await startDiscordStandIn({ users: [{ id: ALICE, username: 'alice' }], ...options.standIn });
  const client = new Client({
    intents: INTENTS,
    partials: [Partials.Message, Partials.Channel, Partials.Reaction],
    rest: { api: discord.apiUrl, retries: 0, timeout: 5000 },
    ...options.client,
  });
  register(client);
  clients.push(client);
  const ready = once(client, Events.ClientReady);
  await client.login(discord.token);
  await ready;
  return client;
}

function general(client: Client): SendableChannels {
  const channel = client.channels.cache.get(discord.channelId);
  if (!channel?.isSendable()) throw new Error('general is not cached as a sendable channel');
  return channel;
}

/** Runs an interaction handler, keeping its failure for the test to assert on. */
function onInteraction(client: Client, handle: (interaction: Interaction) => Promise<unknown>, failures: unknown[]) {
  client.on(Events.InteractionCreate, (interaction) => void handle(interaction).catch((error) => failures.push(error)));
}

describe('Discord stand-in with the discord.js Client', () => {
  it('logs in over REST and the gateway, and stores registered commands', async () => {
    const client = await start();

    expect(client.user).toMatchObject({ id: discord.ids.botUserId, bot: true });
    expect(client.guilds.cache.get(discord.ids.guildId)?.channels.cache.has(discord.channelId)).toBe(true);
    expect(discord.gateway).toMatchObject({ identifies: 1, lastSequence: 2 });
    expect(discord.callsTo('GET', '/gateway/bot')).toMatchObject([{ status: 200 }]);

    const registered = await client.application?.commands.set([ANALYZE], discord.ids.guildId);
    expect([...(registered?.values() ?? [])].map((command) => command.name)).toEqual(['analyze']);
    const [stored] = discord.commands(discord.ids.guildId);
    expect(stored).toMatchObject({ name: 'analyze', guild_id: discord.ids.guildId, options: [{ name: 'question' }] });
    await client.application?.commands.set([ANALYZE], discord.ids.guildId);
    expect(discord.commands()[0]?.id).toBe(stored?.id);
  });

  it('defers and edits a slash-command reply, starts a thread on it, and sends a file with a button', async () => {
    const failures: unknown[] = [];
    const client = await start((client) =>
      onInteraction(
        client,
        async (interaction) => {
          if (!interaction.isChatInputCommand()) return;
          await interaction.deferReply();
          const reply = await interaction.editReply(`Analyzing: ${interaction.options.getString('question', true)}`);
          const thread = await reply.startThread({ name: 'Analysis', autoArchiveDuration: 60 });
          const accept = new ButtonBuilder().setCustomId('accept:1').setLabel('Accept').setStyle(ButtonStyle.Success);
          await thread.send({
            content: 'Rows per month',
            files: [new AttachmentBuilder(PNG, { name: 'chart.png', description: 'Bar chart of rows per month' })],
            components: [new ActionRowBuilder<ButtonBuilder>().addComponents(accept)],
          });
        },
        failures,
      ),
    );
    await client.application?.commands.set([ANALYZE], discord.ids.guildId);

    const command = await discord.slashCommand({
      user: ALICE,
      channel: discord.channelId,
      name: 'analyze',
      options: { question: 'rows per month?' },
    });

    const [thread] = await discord.waitFor(() => discord.threads().length > 0 && discord.threads());
    const chart = await discord.waitFor(() => discord.messages(thread?.id ?? '')[0]);
    expect(failures).toEqual([]);
    expect(discord.interactionResponses(command.id).map(({ kind, type, status }) => ({ kind, type, status }))).toEqual([
      { kind: 'callback', type: 5, status: 204 },
      { kind: 'edit', type: undefined, status: 200 },
    ]);
    const [reply] = discord.messages(discord.channelId);
    expect(reply).toMatchObject({
      content: 'Analyzing: rows per month?',
      type: 20,
      webhook_id: discord.ids.applicationId,
    });
    expect((reply?.flags ?? 0) & MessageFlags.Loading).toBe(0);
    expect(reply?.interaction_metadata).toMatchObject({ id: command.id, user: { id: ALICE } });
    expect(thread).toMatchObject({ id: reply?.id, type: 11, parent_id: discord.channelId, name: 'Analysis' });

    const [attachment] = chart.attachments;
    expect(attachment).toMatchObject({
      filename: 'chart.png',
      description: 'Bar chart of rows per month',
      content_type: 'image/png',
    });
    expect(attachment?.bytes.equals(PNG)).toBe(true);
    expect(chart.components).toMatchObject([{ type: 1, components: [{ type: 2, custom_id: 'accept:1' }] }]);
    const download = await fetch(attachment?.url ?? '');
    expect(Buffer.from(await download.arrayBuffer()).equals(PNG)).toBe(true);
    expect(discord.callsTo('POST', '/channels/:id/messages')[0]?.files).toMatchObject([{ field: 'files[0]' }]);
  });

  it('opens a modal from a button and delivers its submission, in both layouts', async () => {
    const failures: unknown[] = [];
    const submitted: string[] = [];
    const client = await start((client) =>
      onInteraction(
        client,
        async (interaction) => {
          if (interaction.isButton() && interaction.customId === 'edit:1') {
            const code = new TextInputBuilder()
              .setCustomId('code')
              .setStyle(TextInputStyle.Paragraph)
              .setValue('SELECT 1');
            const label = new LabelBuilder().setLabel('SQL').setTextInputComponent(code);
            await interaction.showModal(
              new ModalBuilder().setCustomId('code:1').setTitle('Edit code').addLabelComponents(label),
            );
          } else if (interaction.isButton()) {
            const input = { type: 4, custom_id: 'text', label: 'Note', style: 1 };
            await interaction.showModal({
              custom_id: 'note:1',
              title: 'Note',
              components: [{ type: 1, components: [input] }],
            });
          } else if (interaction.isModalSubmit()) {
            const field = interaction.customId === 'code:1' ? 'code' : 'text';
            submitted.push(interaction.fields.getTextInputValue(field));
            await interaction.reply({ content: 'Saved', flags: MessageFlags.Ephemeral });
          }
        },
        failures,
      ),
    );
    const buttons = ['edit:1', 'note:1'].map((id) =>
      new ButtonBuilder().setCustomId(id).setLabel(id).setStyle(ButtonStyle.Primary),
    );
    const posted = await general(client).send({
      content: 'Query ready',
      components: [new ActionRowBuilder<ButtonBuilder>().addComponents(buttons)],
    });
    const base = { user: ALICE, channel: discord.channelId };

    const click = await discord.click({ ...base, messageId: posted.id, customId: 'edit:1' });
    await discord.waitFor(() => discord.interactionResponses(click.id)[0]);
    expect(discord.interactionResponses(click.id)[0]).toMatchObject({ type: 9, status: 204 });
    await discord.submitModal({ ...base, customId: 'code:1', fields: { code: 'SELECT 2' } });
    await discord.click({ ...base, messageId: posted.id, customId: 'note:1' });
    await discord.waitFor(() => discord.interactions().filter((interaction) => interaction.modal).length === 2);
    const note = await discord.submitModal({ ...base, customId: 'note:1', fields: { text: 'looks right' } });

    await discord.waitFor(() => submitted.length === 2);
    expect(failures).toEqual([]);
    expect(submitted).toEqual(['SELECT 2', 'looks right']);
    await discord.waitFor(() => discord.ephemerals(ALICE).length === 2);
    expect(discord.ephemerals(ALICE)[0]).toMatchObject({ content: 'Saved', flags: MessageFlags.Ephemeral });
    expect(discord.messages(discord.channelId).map((message) => message.content)).toEqual(['Query ready']);
    expect(discord.interactionResponses(note.id)).toMatchObject([{ type: 4, status: 204 }]);
    await expect(discord.submitModal({ ...base, customId: 'never-shown', fields: {} })).rejects.toThrow(/no modal/);
  });

  it('delivers a reaction on an uncached message as a partial, and records typing', async () => {
    const reactions: Array<{ emoji: string | null; user: string; partial: boolean; content: string | null }> = [];
    let ownReactions = 0;
    const client = await start((client) =>
      client.on(Events.MessageReactionAdd, async (reaction, user) => {
        if (user.id === client.user?.id) {
          ownReactions += 1; // Discord echoes the bot's own reactions too.
          return;
        }
        const partial = reaction.message.partial;
        const message = await reaction.message.fetch();
        reactions.push({ emoji: reaction.emoji.name, user: user.id, partial, content: message.content });
      }),
    );
    const channel = general(client);
    const posted = await channel.send('Accept this section?');
    await posted.react('✅');
    await discord.waitFor(() => ownReactions === 1);
    if (channel.type === ChannelType.GuildText) channel.messages.cache.clear();

    await discord.react({ user: ALICE, channel: discord.channelId, messageId: posted.id, emoji: '✅' });
    await discord.waitFor(() => reactions.length > 0);
    expect(reactions).toEqual([{ emoji: '✅', user: ALICE, partial: true, content: 'Accept this section?' }]);
    expect(discord.findMessage(posted.id)?.reactions).toEqual([
      { emoji: { id: null, name: '✅' }, users: [discord.ids.botUserId, ALICE] },
    ]);

    await channel.sendTyping();
    expect(discord.typing(discord.channelId)).toHaveLength(1);
  });

  it('has @discordjs/rest wait out a 429 and send exactly once; a 500 fails with retries: 0', async () => {
    const client = await start();
    const limited: RateLimitData[] = [];
    client.rest.on('rateLimited', (data) => limited.push(data));
    discord.failNext('POST /channels/:id/messages', { status: 429, retryAfterSeconds: 0.3 });

    await general(client).send('after the limit');

    const calls = discord.callsTo('POST', '/channels/:id/messages');
    expect(calls.map((call) => call.status)).toEqual([429, 200]);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(300);
    expect(limited.length).toBeGreaterThan(0);
    const sent = discord.messages(discord.channelId).filter((message) => message.content === 'after the limit');
    expect(sent).toHaveLength(1);

    discord.failNext('/channels/{id}/messages', { status: 500 });
    await expect(general(client).send('boom')).rejects.toMatchObject({ status: 500 });
  });

  it('enforces Discord rules: 2,000 characters, one initial response, the 3 s window, the token lifetime', async () => {
    const failures: unknown[] = [];
    const late: unknown[] = [];
    const client = await start(
      (client) =>
        onInteraction(
          client,
          async (interaction) => {
            if (!interaction.isChatInputCommand()) return;
            if (interaction.options.getString('question') === 'slow') {
              await new Promise((resolve) => setTimeout(resolve, 700));
              await interaction.deferReply().catch((error) => late.push(error));
              return;
            }
            await interaction.reply('first');
            await new Promise((resolve) => setTimeout(resolve, 800));
            await interaction.followUp('too late').catch((error) => late.push(error));
          },
          failures,
        ),
      { standIn: { initialResponseMs: 500, interactionTokenTtlMs: 600 } },
    );
    await client.application?.commands.set([ANALYZE]);

    const tooLong = general(client).send('x'.repeat(2001));
    await expect(tooLong).rejects.toMatchObject({
      code: 50035,
      rawError: { errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } },
    });

    const base = { user: ALICE, channel: discord.channelId, name: 'analyze' };
    const fast = await discord.slashCommand({ ...base, options: { question: 'fast' } });
    await discord.waitFor(() => discord.interactionResponses(fast.id).length > 0);
    const again = client.rest.post(Routes.interactionCallback(fast.id, fast.token), {
      body: { type: 4, data: { content: 'again' } },
      auth: false,
    });
    await expect(again).rejects.toMatchObject({ code: 40060, status: 400 });
    await discord.slashCommand({ ...base, options: { question: 'slow' } });

    await discord.waitFor(() => late.length === 2);
    expect(failures).toEqual([]);
    expect(late.every((error) => error instanceof DiscordAPIError)).toBe(true);
    expect(late.map((error) => (error as DiscordAPIError).code).sort()).toEqual([10062, 50027]);
    await expect(discord.slashCommand({ ...base, name: 'unknown' })).rejects.toThrow(/not registered/);
  });

  it('delivers thread messages with the thread as channel, and user attachments the bot can download', async () => {
    const seen: Message[] = [];
    const client = await start((client) => client.on(Events.MessageCreate, (message) => void seen.push(message)));
    const channel = general(client);
    if (channel.type !== ChannelType.GuildText) throw new Error('general is not a text channel');
    const thread = await channel.threads.create({ name: 'Follow-up', type: ChannelType.PublicThread });
    const csv = Buffer.from('month,rows\n2024-01,10\n');

    const id = await discord.message({
      user: ALICE,
      channel: thread.id,
      content: 'make it a bar chart',
      attachments: [{ filename: 'data.csv', contentType: 'text/csv', content: csv }],
    });

    const message = await discord.waitFor(() => seen.find((candidate) => candidate.id === id));
    expect(message.channel.isThread()).toBe(true);
    expect(message).toMatchObject({ channelId: thread.id, content: 'make it a bar chart' });
    expect(message.member?.id).toBe(ALICE);
    const attachment = message.attachments.first();
    expect(attachment).toMatchObject({ name: 'data.csv', contentType: 'text/csv', size: csv.length });
    expect(Buffer.from(await (await fetch(attachment?.url ?? '')).arrayBuffer()).equals(csv)).toBe(true);
    expect((await fetch((attachment?.url ?? '').split('?')[0] ?? '')).status).toBe(404);
    expect(discord.threads()).toMatchObject([{ id: thread.id, type: 11, parent_id: discord.channelId }]);
  });

  it('applies intents: without MessageContent only mentions carry content; roles arrive on member', async () => {
    const seen: Message[] = [];
    await start((client) => client.on(Events.MessageCreate, (message) => void seen.push(message)), {
      client: { intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages] },
    });
    const role = await discord.addRole({ name: 'analyst' });
    discord.setRoles(ALICE, [role]);

    await discord.message({ user: ALICE, channel: discord.channelId, content: 'plain' });
    await discord.message({ user: ALICE, channel: discord.channelId, content: 'hello', mentionsBot: true });

    await discord.waitFor(() => seen.length === 2);
    expect(seen.map((message) => message.content)).toEqual(['', `<@${discord.ids.botUserId}> hello`]);
    expect(seen[1]?.mentions.users.has(discord.ids.botUserId)).toBe(true);
    expect(seen[1]?.member?.roles.cache.has(role)).toBe(true);
  });

  it('resumes after a reconnect request without losing or repeating events, and acks heartbeats', async () => {
    const seen: string[] = [];
    await start((client) => client.on(Events.MessageCreate, (message) => void seen.push(message.id)), {
      standIn: { heartbeatIntervalMs: 100 },
    });

    const resumed = discord.requestReconnect();
    await discord.waitFor(() => !discord.gateway.online);
    // Sent while the client is away: held, then replayed on RESUME.
    const id = await discord.message({ user: ALICE, channel: discord.channelId, content: 'during the reconnect' });
    await resumed;

    await discord.waitFor(() => seen.includes(id));
    await discord.waitFor(() => discord.gateway.heartbeats >= 2);
    expect(discord.gateway).toMatchObject({ identifies: 1, resumes: 1 });
    expect(seen.filter((candidate) => candidate === id)).toHaveLength(1);
  });

  it('rejects an unknown token with 401', async () => {
    discord = await startDiscordStandIn();
    const client = new Client({ intents: INTENTS, rest: { api: discord.apiUrl, retries: 0, timeout: 5000 } });
    clients.push(client);

    await expect(client.login('not-the-token')).rejects.toMatchObject({ code: 'TokenInvalid' });
    expect(discord.callsTo('GET', '/gateway/bot')).toMatchObject([{ status: 401 }]);
  });
});
