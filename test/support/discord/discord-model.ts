/**
 * The shapes of what the Discord stand-in keeps: its ids, users, roles, channels and threads,
 * messages (with attachment bytes and reacting users), interactions and REST calls. Field names
 * follow the wire (snake_case) wherever the record is also sent, so tests compare against
 * Discord's documentation directly.
 */

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
  /** The callback type (4 reply, 5 defer, 6 deferUpdate, 7 update, 8 autocomplete result, 9 modal); callbacks only. */
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
  /** 2 application command, 3 message component, 4 autocomplete, 5 modal submit. */
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
  /** Autocomplete (type 4): the declared option being typed, which the choices must fit. */
  focused?: Json;
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

/**
 * Add Reactions (6), View Channel (10), Send Messages (11), Embed Links (14), Attach Files (15),
 * Read Message History (16), Use External Emojis (18), Use Application Commands (31), Create Public
 * Threads (35), Send Messages in Threads (38).
 */
const PERMISSION_BITS = [6, 10, 11, 14, 15, 16, 18, 31, 35, 38];
/** @everyone's permissions by default, as a decimal bit set: what a bot in a plain server can do. */
export const DEFAULT_EVERYONE_PERMISSIONS = PERMISSION_BITS.reduce(
  (bits, bit) => bits | (1n << BigInt(bit)),
  0n,
).toString();
