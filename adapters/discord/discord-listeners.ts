/**
 * Discord events into platform-neutral inbound messages: `/analyze` defers at once, posts the
 * question and opens a thread for the session; a mention in a channel does the same; replies in
 * threads tally is part of continue it; slash commands in a thread act on it; buttons, forms and
 * reactions on review posts become actions. Outside the allowed guilds and channels nothing happens
 * (commands get an ephemeral explanation).
 */
import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Client,
  type GuildMember,
  type Interaction,
  type Message,
  MessageFlags,
  type ModalSubmitInteraction,
} from 'discord.js';
import { ACTION_IDS, type Inbound, type SharedFile } from '../../src/ports/chat.js';
import { commandText } from './discord-commands.js';
import { EDIT_FORM, editForm, FORM_INPUT_CHARS, REVISE_FORM, reviseForm } from './discord-forms.js';
import { parseCustomId, REACTIONS, type Remembered } from './discord-render.js';
import { discordThreadKey } from './discord-thread-key.js';

export interface DiscordListenerContext {
  client: Client;
  deliver: (inbound: Inbound) => void;
  isKnownThread: (threadKey: string) => Promise<boolean>;
  markThread: (threadKey: string) => void;
  /** What a message of tally's is (after the posts under way in its channel went out). */
  remembered: (messageId: string, channelId: string) => Promise<(Remembered & { threadKey: string }) | undefined>;
  keepInteraction: (threadKey: string, userId: string, interaction: Interaction) => void;
  allowed: (guildId: string, channelId: string) => boolean;
  isReviewer: (roleIds: string[]) => boolean;
  logError: (error: unknown, message: string) => void;
}

const threadName = (text: string) => (text.replace(/\s+/g, ' ').trim() || 'tally').slice(0, 90);

function roles(member: GuildMember | { roles?: unknown } | null | undefined): string[] {
  const held = (member as GuildMember | undefined)?.roles;
  if (!held) return [];
  if (Array.isArray(held)) return held as string[];
  return 'cache' in held ? [...held.cache.keys()] : [];
}

function sharedFiles(message: Message): SharedFile[] {
  return [...message.attachments.values()].map((attachment) => ({
    name: attachment.name,
    mime: attachment.contentType ?? 'application/octet-stream',
    sizeBytes: attachment.size,
    download: async () => {
      const response = await fetch(attachment.url);
      if (!response.ok) throw new Error(`Discord refused the download of ${attachment.name} (HTTP ${response.status})`);
      return Buffer.from(await response.arrayBuffer());
    },
  }));
}

export function registerDiscordListeners(context: DiscordListenerContext): void {
  const { client } = context;
  const user = (id: string, member: unknown) => ({
    id,
    ...(context.isReviewer(roles(member as GuildMember)) ? { reviewer: true } : {}),
  });

  client.on('messageCreate', async (message) => {
    try {
      if (message.author.bot || !message.guildId) return;
      const channel = message.channel;
      const parentId = channel.isThread() ? (channel.parentId ?? '') : channel.id;
      if (!context.allowed(message.guildId, parentId)) return;
      const botId = client.user?.id ?? '';
      const mentioned = message.mentions.users.has(botId);
      const text = message.content.replace(new RegExp(`<@!?${botId}>`, 'g'), '').trim();
      let threadKey: string;
      if (channel.isThread()) {
        threadKey = discordThreadKey(message.guildId, channel.id);
        if (!mentioned && !(await context.isKnownThread(threadKey))) return;
      } else {
        if (!mentioned) return;
        const thread = await message.startThread({ name: threadName(text), autoArchiveDuration: 1440 });
        threadKey = discordThreadKey(message.guildId, thread.id);
      }
      context.markThread(threadKey);
      await message.react('👀').catch(() => undefined);
      const files = sharedFiles(message);
      context.deliver({
        threadKey,
        user: user(message.author.id, message.member),
        text,
        receivedAt: Date.now(),
        ...(files.length > 0 ? { files } : {}),
      });
    } catch (error) {
      context.logError(error, 'discord message failed');
    }
  });

  client.on('interactionCreate', async (interaction) => {
    try {
      if (interaction.isChatInputCommand()) await command(interaction);
      else if (interaction.isButton()) await button(interaction);
      else if (interaction.isModalSubmit()) await form(interaction);
    } catch (error) {
      context.logError(error, 'discord interaction failed');
    }
  });

  client.on('messageReactionAdd', async (reaction, reactor) => {
    if (reactor.bot) return;
    const control = REACTIONS[reaction.emoji.name ?? ''];
    const posted = await context.remembered(reaction.message.id, reaction.message.channelId);
    if (!control || posted?.kind !== 'review' || !posted.controls.includes(control)) return;
    const member = reaction.message.guild?.members.cache.get(reactor.id);
    context.deliver({
      threadKey: posted.threadKey,
      user: user(reactor.id, member),
      text: '',
      action: { id: ACTION_IDS[control], value: posted.value },
      receivedAt: Date.now(),
    });
  });

  async function refuseOutside(interaction: ChatInputCommandInteraction | ButtonInteraction | ModalSubmitInteraction) {
    const channel = interaction.channel;
    const parentId = channel?.isThread() ? (channel.parentId ?? '') : (interaction.channelId ?? '');
    if (interaction.guildId && context.allowed(interaction.guildId, parentId)) return false;
    await interaction.reply({ content: 'Sorry, tally is not enabled here.', flags: MessageFlags.Ephemeral });
    return true;
  }

  async function command(interaction: ChatInputCommandInteraction) {
    if (await refuseOutside(interaction)) return;
    const guildId = interaction.guildId ?? '';
    if (interaction.commandName === 'analyze') {
      await interaction.deferReply(); // within 3 s; the work itself goes to the thread
      const question = interaction.options.getString('question', true);
      const reply = await interaction.editReply({ content: `**${interaction.user.username} asked:** ${question}` });
      const thread = await reply.startThread({ name: threadName(question), autoArchiveDuration: 1440 });
      const threadKey = discordThreadKey(guildId, thread.id);
      context.markThread(threadKey);
      context.deliver({
        threadKey,
        user: user(interaction.user.id, interaction.member),
        text: question,
        receivedAt: Date.now(),
      });
      return;
    }
    const channel = interaction.channel;
    const text = commandText(
      interaction.commandName,
      interaction.options.data.map((option) => ({ name: option.name, value: option.value })),
    );
    if (!channel?.isThread() || !text) {
      const why = !text
        ? 'Give at least one setting to change.'
        : 'Use this in a tally thread (start one with /analyze).';
      await interaction.reply({ content: why, flags: MessageFlags.Ephemeral });
      return;
    }
    const threadKey = discordThreadKey(guildId, channel.id);
    context.keepInteraction(threadKey, interaction.user.id, interaction);
    await interaction.reply({ content: `\`${text}\``, flags: MessageFlags.Ephemeral });
    context.deliver({ threadKey, user: user(interaction.user.id, interaction.member), text, receivedAt: Date.now() });
  }

  async function button(interaction: ButtonInteraction) {
    if (await refuseOutside(interaction)) return;
    const { actionId, value } = parseCustomId(interaction.customId);
    const threadKey = discordThreadKey(interaction.guildId ?? '', interaction.channelId);
    context.keepInteraction(threadKey, interaction.user.id, interaction);
    const from = user(interaction.user.id, interaction.member);
    if (actionId === ACTION_IDS.revise) {
      await interaction.showModal(reviseForm(value));
      return;
    }
    if (actionId === ACTION_IDS.edit) {
      const posted = await context.remembered(interaction.message.id, interaction.channelId);
      const code = posted?.kind === 'approval' ? posted.code : '';
      if (code.length > FORM_INPUT_CHARS) {
        await interaction.reply({
          content: `This cell is longer than the ${FORM_INPUT_CHARS.toLocaleString('en')} characters a form holds: reply in the thread with \`edit\` and a code block with the code to run instead.`,
          flags: MessageFlags.Ephemeral,
        });
        return;
      }
      await interaction.showModal(editForm(value, code));
      return;
    }
    await interaction.deferUpdate();
    if (actionId === ACTION_IDS.choice) {
      context.deliver({
        threadKey,
        user: from,
        text: value,
        action: { id: ACTION_IDS.choice, value },
        receivedAt: Date.now(),
      });
      return;
    }
    context.deliver({ threadKey, user: from, text: '', action: { id: actionId, value }, receivedAt: Date.now() });
  }

  async function form(interaction: ModalSubmitInteraction) {
    if (await refuseOutside(interaction)) return;
    const { actionId: formId, value } = parseCustomId(interaction.customId);
    const threadKey = discordThreadKey(interaction.guildId ?? '', interaction.channelId ?? '');
    context.keepInteraction(threadKey, interaction.user.id, interaction);
    const field = formId === EDIT_FORM ? 'code' : 'feedback';
    const text = interaction.fields.getTextInputValue(field).trim();
    await interaction.deferUpdate();
    const actionId = formId === REVISE_FORM ? ACTION_IDS.revise : ACTION_IDS.edit;
    context.deliver({
      threadKey,
      user: user(interaction.user.id, interaction.member),
      text,
      action: { id: actionId, value },
      receivedAt: Date.now(),
    });
  }
}
