/**
 * Threads: `POST /channels/{c}/messages/{m}/threads` (a public thread, type 11, whose id is the
 * starter message's id; one per message, else 160004) and `POST /channels/{c}/threads` (a thread
 * without a starter message: private, type 12, unless `type: 11` is given, as documented). Both
 * dispatch THREAD_CREATE to the creator; the first also MESSAGE_UPDATE of the starter message, which
 * now carries `thread` and flag HAS_THREAD (32).
 */
import { requireChannel, requireMessage } from './channel-routes.js';
import type { DiscordChannel, Json } from './discord-model.js';
import { type DiscordState, discordTimestamp } from './discord-state.js';
import { messageDispatch, threadCreateDispatch } from './payloads.js';
import { bodyObject, type RestContext, type RouteDefinition } from './rest-context.js';
import { errors, json } from './rest-reply.js';

const ARCHIVE_DURATIONS = [60, 1440, 4320, 10080];

function newThread(
  state: DiscordState,
  input: { id: string; parent: DiscordChannel; type: number; body: Json; ownerId: string },
): DiscordChannel {
  const { body } = input;
  const name = typeof body.name === 'string' ? body.name : '';
  if (name.length < 1 || name.length > 100) {
    throw errors.invalidFormBody('name', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  }
  const duration = Number(body.auto_archive_duration ?? input.parent.default_auto_archive_duration ?? 4320);
  if (!ARCHIVE_DURATIONS.includes(duration)) {
    throw errors.invalidFormBody(
      'auto_archive_duration',
      'BASE_TYPE_CHOICES',
      `Value must be one of ${ARCHIVE_DURATIONS}.`,
    );
  }
  const now = discordTimestamp();
  return {
    id: input.id,
    type: input.type,
    name,
    guild_id: state.ids.guildId,
    parent_id: input.parent.id,
    owner_id: input.ownerId,
    last_message_id: null,
    rate_limit_per_user: Number(body.rate_limit_per_user ?? 0),
    flags: 0,
    message_count: 0,
    member_count: 1,
    total_message_sent: 0,
    thread_metadata: {
      archived: false,
      auto_archive_duration: duration,
      archive_timestamp: now,
      locked: false,
      create_timestamp: now,
      ...(input.type === 12 ? { invitable: body.invitable !== false } : {}),
    },
    member: { id: input.id, user_id: state.ids.botUserId, join_timestamp: now, flags: 0 },
  };
}

function addThread(context: RestContext, thread: DiscordChannel): DiscordChannel {
  context.state.addChannel(thread);
  context.emit('THREAD_CREATE', threadCreateDispatch(thread));
  return thread;
}

export const threadRoutes: RouteDefinition[] = [
  {
    method: 'POST',
    template: '/channels/:channelId/messages/:messageId/threads',
    auth: true,
    handle: (request, context) => {
      const { state } = context;
      const parent = requireChannel(state, request.params.channelId);
      const message = requireMessage(state, parent.id, request.params.messageId);
      if (state.isThread(parent)) throw errors.wrongChannelType();
      if (state.channels.has(message.id)) throw errors.threadExists();
      const body = bodyObject(request);
      const ownerId = state.ids.botUserId;
      const thread = newThread(state, { id: message.id, parent, type: 11, body, ownerId });
      message.thread = thread;
      message.flags |= 32; // HAS_THREAD
      addThread(context, thread);
      context.emit('MESSAGE_UPDATE', messageDispatch(state, message));
      return json(thread, 201);
    },
  },
  {
    method: 'POST',
    template: '/channels/:channelId/threads',
    auth: true,
    handle: (request, context) => {
      const { state } = context;
      const parent = requireChannel(state, request.params.channelId);
      if (state.isThread(parent)) throw errors.wrongChannelType();
      const body = bodyObject(request);
      const type = Number(body.type ?? 12);
      const ownerId = state.ids.botUserId;
      const thread = newThread(state, { id: state.nextId(), parent, type, body, ownerId });
      return json(addThread(context, thread), 201);
    },
  },
];
