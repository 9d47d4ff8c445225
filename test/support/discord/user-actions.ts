/**
 * People in the guild writing and reacting: each action changes the stand-in's state the way
 * Discord would and dispatches the gateway event the bot receives (MESSAGE_CREATE with the author's
 * `member` and roles, MESSAGE_UPDATE for an edit, MESSAGE_REACTION_ADD). They resolve once the event was written to the socket;
 * to see what the bot did afterwards use `DiscordStandIn.waitFor`.
 */
import { attachmentUrl } from './cdn.js';
import type { DiscordMessage, StoredAttachment } from './discord-model.js';
import { type DiscordState, discordTimestamp } from './discord-state.js';
import type { GatewayServer } from './gateway.js';
import { messageDispatch, reactionDispatch, wireMessage } from './payloads.js';

export interface UserActionContext {
  state: DiscordState;
  gateway: GatewayServer;
  /** `http://127.0.0.1:<port>`, for attachment URLs. */
  baseUrl: string;
}

/** A file a user attaches to a message; served at the attachment's `url` for the bot to download. */
export interface UserAttachment {
  filename: string;
  /** Default `application/octet-stream`. */
  contentType?: string;
  content: Buffer;
  description?: string;
}

export interface UserMessageInput {
  user: string;
  /** A text channel or a thread id (thread messages carry `channel_id` = the thread). */
  channel: string;
  content: string;
  /** Prefix `<@bot>` (unless the content already names the bot) and list the bot in `mentions`. */
  mentionsBot?: boolean;
  attachments?: UserAttachment[];
  /** Reply to this message (type 19 with `message_reference`). */
  replyTo?: string;
}

export function requireUserChannel(state: DiscordState, channelId: string, action: string) {
  const channel = state.channels.get(channelId);
  if (!channel) {
    const known = [...state.channels.values()].map((candidate) => `${candidate.id} (${candidate.name})`).join(', ');
    throw new Error(`Discord stand-in: ${action}: no channel or thread ${channelId}; known: ${known}`);
  }
  return channel;
}

export function requireUserMessage(state: DiscordState, channelId: string, messageId: string, action: string) {
  requireUserChannel(state, channelId, action);
  const message = state.findMessage(messageId, channelId);
  if (!message) throw new Error(`Discord stand-in: ${action}: no message ${messageId} in channel ${channelId}`);
  return message;
}

function userAttachments(context: UserActionContext, channelId: string, files: UserAttachment[]): StoredAttachment[] {
  return files.map((file) => {
    const id = context.state.nextId();
    const url = attachmentUrl(context.baseUrl, { channelId, attachmentId: id, filename: file.filename });
    const attachment: StoredAttachment = {
      id,
      filename: file.filename,
      ...(file.description === undefined ? {} : { description: file.description }),
      content_type: file.contentType ?? 'application/octet-stream',
      size: file.content.length,
      url,
      proxy_url: url,
      bytes: file.content,
    };
    context.state.attachments.set(id, attachment);
    return attachment;
  });
}

/** Stores a user's message and dispatches MESSAGE_CREATE; resolves with the message id. */
export async function postUserMessage(context: UserActionContext, input: UserMessageInput): Promise<string> {
  const { state } = context;
  const channel = requireUserChannel(state, input.channel, 'message');
  const botMention = `<@${state.ids.botUserId}>`;
  const content =
    input.mentionsBot && !input.content.includes(botMention) ? `${botMention} ${input.content}` : input.content;
  const mentioned = [...content.matchAll(/<@!?(\d+)>/g)].map((match) => match[1] ?? '');
  const reference = input.replyTo === undefined ? undefined : state.findMessage(input.replyTo);
  if (input.replyTo !== undefined && !reference) {
    throw new Error(`Discord stand-in: message: no message ${input.replyTo} to reply to`);
  }
  const message: DiscordMessage = {
    id: state.nextId(),
    channel_id: channel.id,
    guild_id: state.ids.guildId,
    author: state.ensureUser(input.user),
    content,
    timestamp: discordTimestamp(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [...new Set(mentioned)].map((id) => state.ensureUser(id)),
    mention_roles: [],
    attachments: userAttachments(context, channel.id, input.attachments ?? []),
    embeds: [],
    components: [],
    reactions: [],
    pinned: false,
    type: reference ? 19 : 0,
    flags: 0,
    nonce: String(Date.now()),
    ...(reference
      ? {
          message_reference: { type: 0, message_id: reference.id, channel_id: channel.id, guild_id: state.ids.guildId },
          referenced_message: wireMessage(state, reference),
        }
      : {}),
  };
  state.addMessage(message);
  await context.gateway.dispatch('MESSAGE_CREATE', messageDispatch(state, message));
  return message.id;
}

/**
 * A user edits their own message: new content, mentions and `edited_timestamp`, then MESSAGE_UPDATE
 * with the whole message (as Discord sends it now). Only the author can edit, as in Discord's client.
 */
export async function editUserMessage(
  context: UserActionContext,
  input: { user: string; channel: string; messageId: string; content: string },
): Promise<void> {
  const { state } = context;
  const message = requireUserMessage(state, input.channel, input.messageId, 'edit');
  if (message.author.id !== input.user) {
    throw new Error(`Discord stand-in: edit: message ${message.id} is by ${message.author.id}, not ${input.user}`);
  }
  if (input.content === '' && message.attachments.length === 0) {
    throw new Error('Discord stand-in: edit: a message cannot be left empty');
  }
  const mentioned = [...input.content.matchAll(/<@!?(\d+)>/g)].map((match) => match[1] ?? '');
  message.content = input.content;
  message.mentions = [...new Set(mentioned)].map((id) => state.ensureUser(id));
  message.edited_timestamp = discordTimestamp();
  state.recordEdit(message);
  await context.gateway.dispatch('MESSAGE_UPDATE', messageDispatch(state, message));
}

/** A user's reaction: stored, then MESSAGE_REACTION_ADD (nothing when they had already reacted so). */
export async function addUserReaction(
  context: UserActionContext,
  input: { user: string; channel: string; messageId: string; emoji: string },
): Promise<void> {
  const { state } = context;
  const message = requireUserMessage(state, input.channel, input.messageId, 'react');
  state.ensureUser(input.user);
  const emoji = { id: null, name: input.emoji };
  if (!state.addReaction(message, emoji, input.user)) return;
  await context.gateway.dispatch(
    'MESSAGE_REACTION_ADD',
    reactionDispatch(state, { userId: input.user, message, emoji, added: true }),
  );
}

/** A user taking their reaction back: MESSAGE_REACTION_REMOVE. */
export async function removeUserReaction(
  context: UserActionContext,
  input: { user: string; channel: string; messageId: string; emoji: string },
): Promise<void> {
  const { state } = context;
  const message = requireUserMessage(state, input.channel, input.messageId, 'unreact');
  const emoji = { id: null, name: input.emoji };
  if (!state.removeReaction(message, emoji, input.user)) return;
  const data = reactionDispatch(state, { userId: input.user, message, emoji, added: false });
  await context.gateway.dispatch('MESSAGE_REACTION_REMOVE', data);
}
