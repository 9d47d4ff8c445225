/**
 * What the Discord stand-in remembers: one guild with its roles, members, text channels and
 * threads; messages (attachments, components, reactions), ephemeral replies, application commands,
 * interactions, typing indicators and every REST call. Plain data plus the few rules Discord applies
 * to it (snowflake ids, one thread per message); the REST and gateway sides read and write it,
 * tests read it through `DiscordStandIn`.
 */
import { SnowflakeGenerator } from './snowflake.js';

/** A JSON object as it goes over the wire. */
export type Json = Record<string, unknown>;

/** The ids of the one guild, application and bot the stand-in plays. */
export interface DiscordIds {
  guildId: string;
  guildName: string;
  /** The application; interaction webhooks are `/webhooks/{applicationId}/{token}`. */
  applicationId: string;
  /** The bot user, named in `<@…>` mentions. Same as the application id by default, as for apps made since 2019. */
  botUserId: string;
  botUsername: string;
  /** The guild's owner (a user, not the bot). */
  ownerId: string;
}

export const DEFAULT_DISCORD_IDS: DiscordIds = {
  guildId: '1300000000000000001',
  guildName: 'Tally Test',
  applicationId: '1300000000000000002',
  botUserId: '1300000000000000002',
  botUsername: 'tally',
  ownerId: '1300000000000000003',
};

export interface DiscordUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: string;
  avatar: null;
  bot?: boolean;
}

export interface DiscordRole {
  id: string;
  name: string;
  /** The permission bit set as a decimal string. */
  permissions: string;
  position: number;
}

/** A text channel (type 0) or a thread (11 public, 12 private), as `GET /channels/{id}` returns it. */
export interface DiscordChannel {
  id: string;
  type: number;
  name: string;
  guild_id: string;
  parent_id: string | null;
  [field: string]: unknown;
}

export interface StoredAttachment {
  id: string;
  filename: string;
  description?: string;
  content_type: string;
  size: number;
  url: string;
  proxy_url: string;
  bytes: Buffer;
}

export interface StoredReaction {
  emoji: { id: string | null; name: string };
  /** Who reacted, in order. */
  users: string[];
}

/** A message with wire field names; `attachments` carry their bytes, reactions their users. */
export interface DiscordMessage {
  id: string;
  channel_id: string;
  guild_id: string;
  author: DiscordUser;
  content: string;
  timestamp: string;
  edited_timestamp: string | null;
  mentions: DiscordUser[];
  mention_roles: string[];
  attachments: StoredAttachment[];
  embeds: unknown[];
  components: unknown[];
  reactions: StoredReaction[];
  type: number;
  flags: number;
  /** The user who alone sees this ephemeral interaction reply (flag 64); such messages are not in `messages()`. */
  ephemeralFor?: string;
  [field: string]: unknown;
}

/** One thing the bot did with an interaction: its callback, or an edit, deletion or follow-up through its webhook. */
export interface DiscordInteractionResponse {
  kind: 'callback' | 'edit' | 'delete' | 'follow-up';
  /** The callback type (4 reply, 5 defer, 6 deferUpdate, 7 update, 9 modal); callbacks only. */
  type?: number;
  body: unknown;
  status: number;
  /** Discord's error code when refused. */
  code?: number;
  messageId?: string;
  at: number;
}

export interface DiscordInteraction {
  id: string;
  token: string;
  /** 2 application command, 3 message component, 5 modal submit. */
  type: number;
  user: string;
  channelId: string;
  /** `Date.now()` when dispatched; the 3-second window and the token lifetime count from here. */
  createdAt: number;
  name?: string;
  customId?: string;
  /** The message a component sits on (type 3) or a modal was opened from. */
  messageId?: string;
  /** Set by the initial response (its callback type). */
  initialResponse?: number;
  /** The message `@original` refers to, once there is one. */
  originalMessageId?: string;
  /** The modal the bot opened in answer (callback type 9 `data`). */
  modal?: Json;
  responses: DiscordInteractionResponse[];
}

/** One REST call as the stand-in received it. */
export interface DiscordCall {
  method: string;
  /** The decoded path after `/api/v10`, e.g. `/webhooks/1/tok/messages/@original`. */
  route: string;
  /** The route template that served it, e.g. `/channels/:channelId/messages`; unset for unknown routes. */
  template?: string;
  query: Record<string, string>;
  /** The JSON body (or `payload_json`). */
  body: unknown;
  files?: Array<{ field: string; filename: string; contentType: string; bytes: Buffer }>;
  /** `Date.now()` on arrival, in milliseconds. */
  at: number;
  /** The HTTP status answered, and Discord's error code for errors. */
  status: number;
  code?: number;
}

const PERMISSION_BITS = [6, 10, 11, 14, 15, 16, 18, 31, 35, 38]; // reactions, view, send, embed, attach, history, …
/** @everyone's permissions by default: view, send, send in threads, create public threads, history, react, attach, embed, use commands, external emoji. */
export const DEFAULT_EVERYONE_PERMISSIONS = PERMISSION_BITS.reduce(
  (bits, bit) => bits | (1n << BigInt(bit)),
  0n,
).toString();

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
