/**
 * Discord events into platform-neutral inbound messages: messages and their edits (see
 * discord-message-listeners.ts); `/analyze` defers at once, posts the question and opens a thread for
 * the session; slash commands in a thread act on it; options being typed get suggestions
 * (autocomplete, answered within Discord's 3 seconds); buttons, forms and reactions on review posts
 * become actions, and "Run the edited version" runs an edited message again. Outside the allowed
 * guilds and channels nothing happens (commands get an ephemeral explanation). Every inbound carries
 * the person's roles (`user.groups`) and its place: the channel, or the channel a thread hangs off.
 */
import {
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Client,
  type Interaction,
  MessageFlags,
  type ModalSubmitInteraction,
} from 'discord.js';
import { ACTION_IDS, type Place, type Viewer } from '../../src/ports/chat.js';
import type { Choice } from './discord-autocomplete.js';
import { commandText, settingProblem } from './discord-commands.js';
import { EDIT_FORM, editForm, FORM_INPUT_CHARS, REVISE_FORM, reviseForm } from './discord-forms.js';
import {
  chatUser,
  type MessageListenerContext,
  registerMessageListeners,
  threadName,
} from './discord-message-listeners.js';
import { discordPlace } from './discord-place.js';
import { parseCustomId, REACTIONS, type Remembered } from './discord-render.js';
import { discordChannelKey, discordThreadKey } from './discord-thread-key.js';

export interface DiscordListenerContext extends MessageListenerContext {
  client: Client;
  /** What a message of tally's is (after the posts under way in its channel went out). */
  remembered: (messageId: string, channelId: string) => Promise<(Remembered & { threadKey: string }) | undefined>;
  keepInteraction: (threadKey: string, userId: string, interaction: Interaction) => void;
  /** Suggestions for the option `viewer` is typing. */
  suggest: (command: string, focused: { name: string; value: string }, viewer: Viewer) => Promise<Choice[]>;
  /** The question an `/analyze` value stands for (a picked long suggestion is a token); undefined if gone. */
  question: (value: string, viewer: Viewer) => Promise<string | undefined>;
}

export function registerDiscordListeners(context: DiscordListenerContext): void {
  const { client } = context;
  const user = (id: string, member: unknown) => chatUser(context, id, member);
  /** Who uses a command or types into its options, and where (`place`: a thread counts as its parent). */
  const viewer = (interaction: AutocompleteInteraction | ChatInputCommandInteraction, place: Place): Viewer => ({
    channel: discordChannelKey(interaction.guildId ?? '', place.channel),
    user: user(interaction.user.id, interaction.member),
    place,
  });
  registerMessageListeners(client, context);

  client.on('interactionCreate', async (interaction) => {
    try {
      if (interaction.isAutocomplete()) await suggest(interaction);
      else if (interaction.isChatInputCommand()) await command(interaction);
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
      place: discordPlace(reaction.message.channel, reaction.message.channelId),
    });
  });

  /** Where the interaction happened when tally works there; otherwise says so and resolves undefined. */
  async function placeInside(
    interaction: ChatInputCommandInteraction | ButtonInteraction | ModalSubmitInteraction,
  ): Promise<Place | undefined> {
    const place = discordPlace(interaction.channel, interaction.channelId ?? '');
    if (interaction.guildId && context.allowed(interaction.guildId, place.channel)) return place;
    await interaction.reply({ content: 'Sorry, tally is not enabled here.', flags: MessageFlags.Ephemeral });
    return undefined;
  }

  /** Suggestions for the option being typed; none outside the allowed channels. */
  async function suggest(interaction: AutocompleteInteraction) {
    const place = discordPlace(interaction.channel, interaction.channelId ?? '');
    const focused = interaction.options.getFocused(true);
    const inside = interaction.guildId !== null && context.allowed(interaction.guildId, place.channel);
    const choices = inside
      ? await context.suggest(
          interaction.commandName,
          { name: focused.name, value: focused.value },
          viewer(interaction, place),
        )
      : [];
    await interaction.respond(choices);
  }

  async function command(interaction: ChatInputCommandInteraction) {
    const place = await placeInside(interaction);
    if (!place) return;
    const guildId = interaction.guildId ?? '';
    if (interaction.commandName === 'analyze') {
      const picked = interaction.options.getString('question', true);
      const question = await context.question(picked, viewer(interaction, place));
      if (question === undefined) {
        const gone = 'I no longer have that suggestion; type the question, please.';
        await interaction.reply({ content: gone, flags: MessageFlags.Ephemeral });
        return;
      }
      await interaction.deferReply(); // within 3 s; the work itself goes to the thread
      const reply = await interaction.editReply({ content: `**${interaction.user.username} asked:** ${question}` });
      const thread = await reply.startThread({ name: threadName(question), autoArchiveDuration: 1440 });
      const threadKey = discordThreadKey(guildId, thread.id);
      context.markThread(threadKey);
      context.deliver({
        threadKey,
        user: user(interaction.user.id, interaction.member),
        text: question,
        receivedAt: Date.now(),
        place,
      });
      return;
    }
    const channel = interaction.channel;
    const problem = interaction.options.data
      .map((option) => settingProblem(option.name, option.value))
      .find((found) => found !== undefined);
    if (interaction.commandName === 'settings' && problem) {
      await interaction.reply({ content: problem, flags: MessageFlags.Ephemeral });
      return;
    }
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
    const from = user(interaction.user.id, interaction.member);
    context.deliver({ threadKey, user: from, text, receivedAt: Date.now(), place });
  }

  async function button(interaction: ButtonInteraction) {
    const place = await placeInside(interaction);
    if (!place) return;
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
    // Run again once: the button goes when it is clicked.
    if (actionId === ACTION_IDS.rerun) await interaction.update({ components: [] });
    else await interaction.deferUpdate();
    if (actionId === ACTION_IDS.choice) {
      context.deliver({
        threadKey,
        user: from,
        text: value,
        action: { id: ACTION_IDS.choice, value },
        receivedAt: Date.now(),
        place,
      });
      return;
    }
    context.deliver({
      threadKey,
      user: from,
      text: '',
      action: { id: actionId, value },
      receivedAt: Date.now(),
      place,
    });
  }

  async function form(interaction: ModalSubmitInteraction) {
    const place = await placeInside(interaction);
    if (!place) return;
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
      place,
    });
  }
}
