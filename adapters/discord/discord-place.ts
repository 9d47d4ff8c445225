/**
 * Where a Discord event happened, as the allowed-channel list and the access policy see it: a thread
 * counts as the channel it hangs off. tally works in guilds only, so a place is never a DM.
 */
import type { Channel } from 'discord.js';
import type { Place } from '../../src/ports/chat.js';

/** The `Inbound.place` of an event in `channel` (id `channelId`): a thread's parent, else the channel itself. */
export function discordPlace(channel: Channel | null | undefined, channelId: string): Place {
  return { channel: channel?.isThread() ? (channel.parentId ?? '') : channelId, dm: false };
}
