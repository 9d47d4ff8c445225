/**
 * Builders of what Discord puts on the wire: users, members, messages, channels, and the gateway
 * dispatches READY, GUILD_CREATE, MESSAGE_CREATE/UPDATE/DELETE, MESSAGE_REACTION_ADD/REMOVE,
 * THREAD_CREATE and INTERACTION_CREATE. Shapes follow discord-api-types v10 and what discord.js
 * 14.28 reads (e.g. INTERACTION_CREATE without `entitlements: []` crashes its constructor).
 */
import type { DiscordChannel, DiscordMessage, DiscordUser, Json, StoredReaction } from './discord-model.js';
import type { DiscordState } from './discord-state.js';

export function wireUser(user: DiscordUser): Json {
  return { ...user, public_flags: 0, ...(user.bot ? { bot: true } : {}) };
}

/** A guild member; `withUser: false` for the `member` of MESSAGE_CREATE (its user is `author`). */
export function wireMember(state: DiscordState, userId: string, withUser = true): Json {
  const user = state.ensureUser(userId);
  return {
    ...(withUser ? { user: wireUser(user) } : {}),
    roles: [...(state.memberRoles.get(userId) ?? [])],
    nick: null,
    avatar: null,
    joined_at: state.joinedAt,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
  };
}

export function wireReaction(reaction: StoredReaction, botUserId: string): Json {
  const count = reaction.users.length;
  return {
    emoji: reaction.emoji,
    count,
    count_details: { burst: 0, normal: count },
    me: reaction.users.includes(botUserId),
    me_burst: false,
    burst_colors: [],
  };
}

/** A message as the REST API returns it: attachments without bytes, reactions as counts. */
export function wireMessage(state: DiscordState, message: DiscordMessage): Json {
  const { ephemeralFor: _ephemeralFor, attachments, reactions, author, ...fields } = message;
  return {
    ...fields,
    author: wireUser(author),
    attachments: attachments.map(({ bytes: _bytes, ...attachment }) => attachment),
    ...(reactions.length === 0
      ? {}
      : { reactions: reactions.map((reaction) => wireReaction(reaction, state.ids.botUserId)) }),
  };
}

/** MESSAGE_CREATE / MESSAGE_UPDATE: the message plus the author's `member` (webhook messages have none). */
export function messageDispatch(state: DiscordState, message: DiscordMessage): Json {
  const member = message.webhook_id === undefined ? { member: wireMember(state, message.author.id, false) } : {};
  return { ...wireMessage(state, message), ...member };
}

export function messageDeleteDispatch(message: DiscordMessage): Json {
  return { id: message.id, channel_id: message.channel_id, guild_id: message.guild_id };
}

export function reactionDispatch(
  state: DiscordState,
  input: { userId: string; message: DiscordMessage; emoji: StoredReaction['emoji']; added: boolean },
): Json {
  const { message } = input;
  return {
    user_id: input.userId,
    channel_id: message.channel_id,
    message_id: message.id,
    guild_id: message.guild_id,
    emoji: input.emoji,
    burst: false,
    type: 0,
    ...(input.added
      ? { member: wireMember(state, input.userId), message_author_id: message.author.id, burst_colors: [] }
      : {}),
  };
}

/** THREAD_CREATE: the thread channel, flagged as new (Discord sends it to the creator too). */
export function threadCreateDispatch(thread: DiscordChannel): Json {
  return { ...thread, newly_created: true };
}

export function readyDispatch(state: DiscordState, input: { sessionId: string; resumeGatewayUrl: string }): Json {
  return {
    v: 10,
    user: { ...wireUser(state.bot()), verified: true, mfa_enabled: false, flags: 0, email: null },
    guilds: [{ id: state.ids.guildId, unavailable: true }],
    session_id: input.sessionId,
    session_type: 'normal',
    resume_gateway_url: input.resumeGatewayUrl,
    shard: [0, 1],
    application: { id: state.ids.applicationId, flags: 0 },
    private_channels: [],
    presences: [],
    relationships: [],
    guild_join_requests: [],
    user_settings: {},
    geo_ordered_rtc_regions: [],
    auth_session_id_hash: 'stand-in',
    _trace: ['["discord-stand-in",{"micros":0}]'],
  };
}

/** GUILD_CREATE for the one guild: roles, every member, text channels and active threads. */
export function guildCreateDispatch(state: DiscordState): Json {
  const channels = [...state.channels.values()].filter((channel) => !state.isThread(channel));
  return {
    id: state.ids.guildId,
    name: state.ids.guildName,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: state.ids.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: 'en-US',
    system_channel_id: channels[0]?.id ?? null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    application_id: null,
    vanity_url_code: null,
    max_members: 500000,
    max_video_channel_users: 25,
    features: [],
    roles: [...state.roles.values()].map((role) => ({
      ...role,
      color: 0,
      colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
      hoist: false,
      icon: null,
      unicode_emoji: null,
      managed: false,
      mentionable: false,
      flags: 0,
    })),
    emojis: [],
    stickers: [],
    soundboard_sounds: [],
    unavailable: false,
    lazy: true,
    large: false,
    joined_at: state.joinedAt,
    member_count: state.users.size,
    members: [...state.users.keys()].map((id) => wireMember(state, id)),
    // GUILD_CREATE leaves `guild_id` off its channels and threads; discord.js fills it in.
    channels: channels.map(({ guild_id: _guild, ...channel }) => channel),
    threads: state.threads().map(({ guild_id: _guild, ...thread }) => thread),
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    embedded_activities: [],
    premium_progress_bar_enabled: false,
    incidents_data: null,
  };
}

/** The partial channel an interaction carries (`channel`): enough for discord.js to cache it. */
export function interactionChannel(channel: DiscordChannel): Json {
  const { id, type, name, guild_id, parent_id } = channel;
  return {
    id,
    type,
    name,
    guild_id,
    parent_id,
    flags: 0,
    permissions: String(channel.permissions ?? '0'),
    ...(channel.thread_metadata ? { thread_metadata: channel.thread_metadata } : {}),
  };
}

export function interactionDispatch(
  state: DiscordState,
  input: {
    id: string;
    token: string;
    type: number;
    userId: string;
    channel: DiscordChannel;
    data: Json;
    message?: Json;
  },
): Json {
  const { ids } = state;
  const permissions = state.permissionsOf(input.userId);
  return {
    id: input.id,
    application_id: ids.applicationId,
    type: input.type,
    token: input.token,
    version: 1,
    guild_id: ids.guildId,
    guild: { id: ids.guildId, locale: 'en-US', features: [] },
    channel_id: input.channel.id,
    channel: { ...interactionChannel(input.channel), permissions },
    member: { ...wireMember(state, input.userId), permissions },
    app_permissions: state.permissionsOf(ids.botUserId),
    locale: 'en-US',
    guild_locale: 'en-US',
    entitlements: [],
    entitlement_sku_ids: [],
    authorizing_integration_owners: { '0': ids.guildId },
    context: 0,
    attachment_size_limit: 10 * 1024 * 1024,
    data: input.data,
    ...(input.message === undefined ? {} : { message: input.message }),
  };
}
