/**
 * People's messages as inbound messages: a mention in a channel opens a thread for a session (the
 * thread's id is the message's); a reply in a thread tally is part of continues it; an edit of such a
 * message (MESSAGE_UPDATE, same intents as MESSAGE_CREATE) arrives as `edited` with the message id,
 * so a queued message runs as edited and one that ran is offered to run again. Every inbound carries
 * the message id, the author's roles and where it was sent (a thread's parent channel). Embed unfurls
 * and other updates that leave the text as it was are ignored.
 */
import type { Client, GuildMemberRoleManager, Message, PartialMessage } from 'discord.js';
import type { ChatUser, Inbound, SharedFile } from '../../src/ports/chat.js';
import { discordPlace } from './discord-place.js';
import { discordThreadKey } from './discord-thread-key.js';

/** What the message listeners need of the adapter (a part of `DiscordListenerContext`). */
export interface MessageListenerContext {
  deliver: (inbound: Inbound) => void;
  isKnownThread: (threadKey: string) => Promise<boolean>;
  markThread: (threadKey: string) => void;
  allowed: (guildId: string, channelId: string) => boolean;
  isReviewer: (roleIds: string[]) => boolean;
  logError: (error: unknown, message: string) => void;
}

export const threadName = (text: string) => (text.replace(/\s+/g, ' ').trim() || 'tally').slice(0, 90);

/**
 * A member's role ids without @everyone (whose id is the guild's): `member.roles` is an array of ids in
 * raw payloads and a role manager on a cached `GuildMember` (whose cache holds @everyone).
 */
export function memberRoleIds(member: unknown): string[] {
  const held = (member as { roles?: unknown } | null | undefined)?.roles;
  if (!held) return [];
  if (Array.isArray(held)) return held.filter((id): id is string => typeof id === 'string');
  if (typeof held !== 'object' || !('cache' in held)) return [];
  const { cache, guild } = held as GuildMemberRoleManager;
  return [...cache.keys()].filter((id) => id !== guild.id);
}

/**
 * The person behind an event: their roles as `groups` (when the event carried their member), and a
 * reviewer when one of their roles is a reviewer role.
 */
export function chatUser(context: Pick<MessageListenerContext, 'isReviewer'>, id: string, member: unknown): ChatUser {
  const known = member !== null && member !== undefined;
  const groups = memberRoleIds(member);
  return { id, ...(known ? { groups } : {}), ...(context.isReviewer(groups) ? { reviewer: true } : {}) };
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

/** The message's text without mentions of the bot. */
const textOf = (message: Message, botId: string) =>
  message.content.replace(new RegExp(`<@!?${botId}>`, 'g'), '').trim();

export function registerMessageListeners(client: Client, context: MessageListenerContext): void {
  client.on('messageCreate', async (message) => {
    try {
      if (message.author.bot || !message.guildId) return;
      const channel = message.channel;
      const place = discordPlace(channel, channel.id);
      if (!context.allowed(message.guildId, place.channel)) return;
      const botId = client.user?.id ?? '';
      const mentioned = message.mentions.users.has(botId);
      const text = textOf(message, botId);
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
        user: chatUser(context, message.author.id, message.member),
        text,
        messageId: message.id,
        receivedAt: Date.now(),
        place,
        ...(files.length > 0 ? { files } : {}),
      });
    } catch (error) {
      context.logError(error, 'discord message failed');
    }
  });

  client.on('messageUpdate', async (before: Message | PartialMessage, after: Message | PartialMessage) => {
    try {
      if (after.author?.bot) return; // tally's own progress edits come back too
      const message = after.partial ? await after.fetch() : after;
      if (message.author.bot || !message.guildId || message.editedTimestamp === null) return;
      if (!before.partial && before.content === message.content) return; // an unfurl, a pin, a reaction
      const channel = message.channel;
      const place = discordPlace(channel, channel.id);
      if (!context.allowed(message.guildId, place.channel)) return;
      // In a channel, the message that opened a session is its thread's starter: same id.
      const threadKey = discordThreadKey(message.guildId, channel.isThread() ? channel.id : message.id);
      if (!(await context.isKnownThread(threadKey))) return;
      context.deliver({
        threadKey,
        user: chatUser(context, message.author.id, message.member),
        text: textOf(message, client.user?.id ?? ''),
        messageId: message.id,
        edited: true,
        receivedAt: Date.now(),
        place,
      });
    } catch (error) {
      context.logError(error, 'discord message edit failed');
    }
  });
}
