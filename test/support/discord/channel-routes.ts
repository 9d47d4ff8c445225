/**
 * `/channels/{id}` and its messages: fetch the channel, list/get/create/edit/delete messages, the
 * bot's reactions and the typing indicator. The bot's own messages, edits, deletions and reactions
 * are echoed over the gateway (MESSAGE_CREATE with `author.bot`, MESSAGE_UPDATE, MESSAGE_DELETE,
 * MESSAGE_REACTION_ADD/REMOVE), as Discord does.
 */
import type { DiscordChannel, DiscordMessage, StoredReaction } from './discord-model.js';
import type { DiscordState } from './discord-state.js';
import { applyMessageEdit, buildBotMessage } from './message-body.js';
import { messageDeleteDispatch, messageDispatch, reactionDispatch, wireMessage, wireUser } from './payloads.js';
import { bodyObject, type RouteDefinition } from './rest-context.js';
import { errors, json, noContent } from './rest-reply.js';

export function requireChannel(state: DiscordState, id: string | undefined): DiscordChannel {
  const channel = state.channels.get(id ?? '');
  if (!channel) throw errors.unknownChannel();
  return channel;
}

export function requireMessage(state: DiscordState, channelId: string | undefined, id: string | undefined) {
  requireChannel(state, channelId);
  const message = state.findMessage(id ?? '', channelId);
  if (!message || message.ephemeralFor !== undefined) throw errors.unknownMessage();
  return message;
}

/** A reaction emoji from the path: `✅` (unicode) or `name:id` (custom; this guild has none). */
function parseEmoji(raw: string): StoredReaction['emoji'] {
  if (/^[^:]+:\d+$/.test(raw)) throw errors.unknownEmoji();
  return { id: null, name: raw };
}

/** `GET /channels/{id}/messages`: newest first, `limit` 1–100 (default 50), `before`/`after`/`around`. */
function listMessages(messages: DiscordMessage[], query: URLSearchParams): DiscordMessage[] {
  const limit = Math.min(Math.max(Number(query.get('limit') ?? 50), 1), 100);
  const newerThan = (id: string | null) => (message: DiscordMessage) => id === null || BigInt(message.id) > BigInt(id);
  const olderThan = (id: string | null) => (message: DiscordMessage) => id === null || BigInt(message.id) < BigInt(id);
  const around = query.get('around');
  if (around !== null) {
    const index = messages.findIndex((message) => message.id === around);
    const start = Math.max(0, index - Math.floor(limit / 2));
    return messages.slice(start, start + limit).reverse();
  }
  const after = query.get('after');
  const matching = messages.filter(newerThan(after)).filter(olderThan(query.get('before')));
  // `after` pages forward from the oldest match; otherwise the newest `limit` are returned.
  const page = after === null ? matching.slice(-limit) : matching.slice(0, limit);
  return page.reverse();
}

export const channelRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    template: '/channels/:channelId',
    auth: true,
    handle: ({ params }, { state }) => json(requireChannel(state, params.channelId)),
  },
  {
    method: 'GET',
    template: '/channels/:channelId/messages',
    auth: true,
    handle: ({ params, query }, { state }) => {
      requireChannel(state, params.channelId);
      const page = listMessages(state.channelMessages(params.channelId ?? ''), query);
      return json(page.map((message) => wireMessage(state, message)));
    },
  },
  {
    method: 'POST',
    template: '/channels/:channelId/messages',
    auth: true,
    handle: (request, context) => {
      const channel = requireChannel(context.state, request.params.channelId);
      const body = bodyObject(request);
      const message = buildBotMessage(context, { channelId: channel.id, body, files: request.files });
      context.state.addMessage(message);
      context.emit('MESSAGE_CREATE', messageDispatch(context.state, message));
      return json(wireMessage(context.state, message));
    },
  },
  {
    method: 'GET',
    template: '/channels/:channelId/messages/:messageId',
    auth: true,
    handle: ({ params }, { state }) =>
      json(wireMessage(state, requireMessage(state, params.channelId, params.messageId))),
  },
  {
    method: 'PATCH',
    template: '/channels/:channelId/messages/:messageId',
    auth: true,
    handle: (request, context) => {
      const { state } = context;
      const message = requireMessage(state, request.params.channelId, request.params.messageId);
      if (message.author.id !== state.ids.botUserId) throw errors.notAuthor();
      applyMessageEdit(context, message, bodyObject(request), request.files);
      context.emit('MESSAGE_UPDATE', messageDispatch(state, message));
      return json(wireMessage(state, message));
    },
  },
  {
    method: 'DELETE',
    template: '/channels/:channelId/messages/:messageId',
    auth: true,
    handle: ({ params }, context) => {
      const { state } = context;
      const message = requireMessage(state, params.channelId, params.messageId);
      // Deleting someone else's message needs Manage Messages, which the bot's default role lacks.
      if (message.author.id !== state.ids.botUserId) throw errors.missingPermissions();
      state.removeMessage(message);
      context.emit('MESSAGE_DELETE', messageDeleteDispatch(message));
      return noContent();
    },
  },
  botReaction('PUT'),
  botReaction('DELETE'),
  {
    method: 'GET',
    template: '/channels/:channelId/messages/:messageId/reactions/:emoji',
    auth: true,
    handle: ({ params }, { state }) => {
      const message = requireMessage(state, params.channelId, params.messageId);
      const emoji = parseEmoji(params.emoji ?? '');
      const reaction = message.reactions.find((candidate) => candidate.emoji.name === emoji.name);
      return json((reaction?.users ?? []).map((id) => wireUser(state.ensureUser(id))));
    },
  },
  {
    method: 'POST',
    template: '/channels/:channelId/typing',
    auth: true,
    handle: ({ params }, { state }) => {
      const channel = requireChannel(state, params.channelId);
      const times = state.typing.get(channel.id) ?? [];
      times.push(Date.now());
      state.typing.set(channel.id, times);
      state.changed();
      return noContent();
    },
  },
];

/** The bot adding (PUT) or removing (DELETE) its own reaction; echoed like Discord does. */
function botReaction(method: 'PUT' | 'DELETE'): RouteDefinition {
  const added = method === 'PUT';
  return {
    method,
    template: '/channels/:channelId/messages/:messageId/reactions/:emoji/@me',
    auth: true,
    handle: ({ params }, context) => {
      const { state } = context;
      const message = requireMessage(state, params.channelId, params.messageId);
      const emoji = parseEmoji(params.emoji ?? '');
      const changed = added
        ? state.addReaction(message, emoji, state.ids.botUserId)
        : state.removeReaction(message, emoji, state.ids.botUserId);
      if (changed) {
        const data = reactionDispatch(state, { userId: state.ids.botUserId, message, emoji, added });
        context.emit(added ? 'MESSAGE_REACTION_ADD' : 'MESSAGE_REACTION_REMOVE', data);
      }
      return noContent();
    },
  };
}
