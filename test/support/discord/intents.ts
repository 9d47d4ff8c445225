/**
 * Gateway intents, applied the way Discord applies them: a dispatch is only sent when the session
 * identified with the intent that covers it, and without the privileged MessageContent intent a
 * guild message's `content`, `embeds`, `attachments`, `components` and `poll` arrive empty unless the
 * bot wrote it or is mentioned in it. A bot configured without an intent it needs fails here as it
 * would on Discord.
 */
import type { Json } from './discord-model.js';

export const Intents = {
  Guilds: 1 << 0,
  GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10,
  GuildMessageTyping: 1 << 11,
  DirectMessages: 1 << 12,
  DirectMessageReactions: 1 << 13,
  MessageContent: 1 << 15,
} as const;

/** The intent a dispatch needs, or undefined when every session gets it (READY, INTERACTION_CREATE, …). */
function requiredIntent(type: string, data: Json): number | undefined {
  const inGuild = typeof data.guild_id === 'string';
  if (/^(GUILD_CREATE|GUILD_UPDATE|GUILD_DELETE|CHANNEL_|THREAD_|GUILD_ROLE_)/.test(type)) return Intents.Guilds;
  if (type.startsWith('MESSAGE_REACTION_')) {
    return inGuild ? Intents.GuildMessageReactions : Intents.DirectMessageReactions;
  }
  if (type.startsWith('MESSAGE_')) return inGuild ? Intents.GuildMessages : Intents.DirectMessages;
  if (type === 'TYPING_START') return Intents.GuildMessageTyping;
  return undefined;
}

/** What a session with `intents` receives for a dispatch: the data, trimmed, or undefined for nothing. */
export function filterForIntents(type: string, data: Json, intents: number, botUserId: string): Json | undefined {
  const needed = requiredIntent(type, data);
  if (needed !== undefined && (intents & needed) === 0) return undefined;
  if ((type !== 'MESSAGE_CREATE' && type !== 'MESSAGE_UPDATE') || (intents & Intents.MessageContent) !== 0) {
    return data;
  }
  const author = data.author as { id?: string } | undefined;
  const mentions = (data.mentions as Array<{ id?: string }> | undefined) ?? [];
  const exempt =
    typeof data.guild_id !== 'string' || author?.id === botUserId || mentions.some((user) => user.id === botUserId);
  if (exempt) return data;
  const { poll: _poll, ...rest } = data;
  return { ...rest, content: '', embeds: [], attachments: [], components: [] };
}
