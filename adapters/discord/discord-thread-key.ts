/** Discord threads as tally thread keys: `discord:<guild>:<thread id>`; channels as `discord:<guild>:<channel id>`. */
import type { ChannelKey, ThreadKey } from '../../src/ports/chat.js';

export const discordThreadKey = (guildId: string, threadId: string): ThreadKey => `discord:${guildId}:${threadId}`;

/** A channel key `discord:<guild>:<channel id>`. */
export const discordChannelKey = (guildId: string, channelId: string): ChannelKey => `discord:${guildId}:${channelId}`;

export function parseDiscordThreadKey(key: ThreadKey): { guildId: string; threadId: string } {
  const match = /^discord:([^:]+):(\d+)$/.exec(key);
  if (!match?.[1] || !match[2]) throw new Error(`not a Discord thread key: ${key}`);
  return { guildId: match[1], threadId: match[2] };
}

/** A channel key `discord:<guild>:<channel id>` (shaped as a thread key is). */
export function parseDiscordChannelKey(key: ChannelKey): { guildId: string; channelId: string } {
  const match = /^discord:([^:]+):(\d+)$/.exec(key);
  if (!match?.[1] || !match[2]) throw new Error(`not a Discord channel key: ${key}`);
  return { guildId: match[1], channelId: match[2] };
}
