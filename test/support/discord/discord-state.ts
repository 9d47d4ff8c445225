/**
 * What the Discord stand-in remembers: one guild with its roles, members, text channels and
 * threads; messages (attachments, components, reactions, edits), ephemeral replies, application
 * commands, interactions, typing indicators and every REST call. Plain data plus the few rules Discord applies
 * to it (snowflake ids, one thread per message); the REST and gateway sides read and write it,
 * tests read it through `DiscordStandIn`.
 */
import {
  DEFAULT_EVERYONE_PERMISSIONS,
  type DiscordCall,
  type DiscordChannel,
  type DiscordIds,
  type DiscordInteraction,
  type DiscordMessage,
  type DiscordRole,
  type DiscordUser,
  type Json,
  type StoredAttachment,
  type StoredReaction,
} from './discord-model.js';
import { SnowflakeGenerator } from './snowflake.js';

// The record types lived here first; tests written against this module keep importing them from it.
export type {
  DiscordCall,
  DiscordChannel,
  DiscordIds,
  DiscordInteraction,
  DiscordInteractionResponse,
  DiscordMessage,
  DiscordRole,
  DiscordUser,
  Json,
  StoredAttachment,
  StoredReaction,
} from './discord-model.js';
export { DEFAULT_DISCORD_IDS } from './discord-model.js';

export class DiscordState {
  readonly users = new Map<string, DiscordUser>();
  readonly roles = new Map<string, DiscordRole>();
  /** User id → role ids (besides @everyone). */
  readonly memberRoles = new Map<string, string[]>();
  readonly channels = new Map<string, DiscordChannel>();
  readonly attachments = new Map<string, StoredAttachment>();
  readonly interactions = new Map<string, DiscordInteraction>();
  /** Commands by scope: `global` or a guild id. */
  readonly commands = new Map<string, Json[]>();
  readonly typing = new Map<string, number[]>();
  /** Message id → its edits (by the bot or its author), oldest first: when, and the content after. */
  readonly edits = new Map<string, Array<{ at: number; content: string }>>();
  readonly ephemerals: DiscordMessage[] = [];
  readonly calls: DiscordCall[] = [];
  readonly joinedAt = new Date().toISOString();
  private readonly messagesByChannel = new Map<string, DiscordMessage[]>();
  private readonly messagesById = new Map<string, DiscordMessage>();
  private readonly listeners = new Set<() => void>();
  private readonly snowflakes = new SnowflakeGenerator();

  constructor(readonly ids: DiscordIds) {
    this.roles.set(ids.guildId, {
      id: ids.guildId,
      name: '@everyone',
      permissions: DEFAULT_EVERYONE_PERMISSIONS,
      position: 0,
    });
    this.ensureUser(ids.botUserId, ids.botUsername).bot = true;
    this.ensureUser(ids.ownerId, 'owner');
  }

  nextId(): string {
    return this.snowflakes.next();
  }

  bot(): DiscordUser {
    return this.ensureUser(this.ids.botUserId);
  }

  /** A user by id, made up (`user-<id>`) on first sight; every user is a guild member. */
  ensureUser(id: string, username?: string): DiscordUser {
    let user = this.users.get(id);
    if (!user) {
      user = { id, username: username ?? `user-${id}`, global_name: null, discriminator: '0', avatar: null };
      this.users.set(id, user);
      this.memberRoles.set(id, []);
    } else if (username !== undefined) {
      user.username = username;
    }
    return user;
  }

  /** The member's permission bits: @everyone's plus every role's, as a decimal string. */
  permissionsOf(userId: string): string {
    const roleIds = [this.ids.guildId, ...(this.memberRoles.get(userId) ?? [])];
    const bits = roleIds.reduce((all, id) => all | BigInt(this.roles.get(id)?.permissions ?? '0'), 0n);
    return bits.toString();
  }

  /** A text channel (type 0) at the end of the channel list. */
  addTextChannel(input: { id?: string | undefined; name: string }): DiscordChannel {
    const textChannels = [...this.channels.values()].filter((channel) => channel.type === 0);
    return this.addChannel({
      id: input.id ?? this.nextId(),
      type: 0,
      name: input.name,
      guild_id: this.ids.guildId,
      parent_id: null,
      position: textChannels.length,
      permission_overwrites: [],
      topic: null,
      nsfw: false,
      last_message_id: null,
      rate_limit_per_user: 0,
      default_auto_archive_duration: 4320,
      flags: 0,
    });
  }

  /** A role below the others; `permissions` is a decimal bit set (default none). */
  addRole(input: { id?: string | undefined; name: string; permissions?: string | undefined }): DiscordRole {
    const role = {
      id: input.id ?? this.nextId(),
      name: input.name,
      permissions: input.permissions ?? '0',
      position: this.roles.size,
    };
    this.roles.set(role.id, role);
    this.changed();
    return role;
  }

  /** Replaces a member's roles (ids besides @everyone). */
  setMemberRoles(userId: string, roleIds: string[]): void {
    this.ensureUser(userId);
    this.memberRoles.set(userId, [...roleIds]);
    this.changed();
  }

  addChannel(channel: DiscordChannel): DiscordChannel {
    this.channels.set(channel.id, channel);
    if (!this.messagesByChannel.has(channel.id)) this.messagesByChannel.set(channel.id, []);
    this.changed();
    return channel;
  }

  isThread(channel: DiscordChannel | undefined): boolean {
    return channel !== undefined && [10, 11, 12].includes(channel.type);
  }

  threads(): DiscordChannel[] {
    return [...this.channels.values()].filter((channel) => this.isThread(channel));
  }

  addMessage(message: DiscordMessage): DiscordMessage {
    this.messagesById.set(message.id, message);
    if (message.ephemeralFor !== undefined) this.ephemerals.push(message);
    else this.messagesByChannel.get(message.channel_id)?.push(message);
    const channel = this.channels.get(message.channel_id);
    if (channel && message.ephemeralFor === undefined) {
      channel.last_message_id = message.id;
      if (this.isThread(channel)) {
        channel.message_count = Number(channel.message_count ?? 0) + 1;
        channel.total_message_sent = Number(channel.total_message_sent ?? 0) + 1;
      }
    }
    this.changed();
    return message;
  }

  /** A message (ephemeral ones included) by id, optionally only in `channelId`. */
  findMessage(id: string, channelId?: string): DiscordMessage | undefined {
    const message = this.messagesById.get(id);
    return channelId === undefined || message?.channel_id === channelId ? message : undefined;
  }

  removeMessage(message: DiscordMessage): void {
    this.messagesById.delete(message.id);
    const list = this.messagesByChannel.get(message.channel_id) ?? [];
    const index = list.indexOf(message);
    if (index >= 0) list.splice(index, 1);
    this.changed();
  }

  /** The channel's (or thread's) messages, oldest first. */
  channelMessages(channelId: string): DiscordMessage[] {
    return [...(this.messagesByChannel.get(channelId) ?? [])];
  }

  /** Notes that `message` was just edited (its content is the new one). */
  recordEdit(message: DiscordMessage): void {
    const edits = this.edits.get(message.id) ?? [];
    edits.push({ at: Date.now(), content: message.content });
    this.edits.set(message.id, edits);
    this.changed();
  }

  /** Adds `userId`'s reaction; false when they already reacted with that emoji. */
  addReaction(message: DiscordMessage, emoji: StoredReaction['emoji'], userId: string): boolean {
    let reaction = message.reactions.find((candidate) => sameEmoji(candidate.emoji, emoji));
    if (!reaction) {
      reaction = { emoji, users: [] };
      message.reactions.push(reaction);
    }
    if (reaction.users.includes(userId)) return false;
    reaction.users.push(userId);
    this.changed();
    return true;
  }

  /** Removes `userId`'s reaction; false when there was none. */
  removeReaction(message: DiscordMessage, emoji: StoredReaction['emoji'], userId: string): boolean {
    const reaction = message.reactions.find((candidate) => sameEmoji(candidate.emoji, emoji));
    if (!reaction?.users.includes(userId)) return false;
    reaction.users = reaction.users.filter((candidate) => candidate !== userId);
    if (reaction.users.length === 0)
      message.reactions = message.reactions.filter((candidate) => candidate !== reaction);
    this.changed();
    return true;
  }

  /** Tells `waitFor` to look again; call after every change. */
  changed(): void {
    for (const listener of this.listeners) listener();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

export function sameEmoji(a: StoredReaction['emoji'], b: StoredReaction['emoji']): boolean {
  return a.id !== null || b.id !== null ? a.id === b.id : a.name === b.name;
}

/** A timestamp as Discord writes it: `2024-05-01T12:00:00.123000+00:00`. */
export function discordTimestamp(ms = Date.now()): string {
  return new Date(ms).toISOString().replace('Z', '000+00:00');
}
