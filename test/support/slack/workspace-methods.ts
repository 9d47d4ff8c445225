/**
 * The read-side and housekeeping methods: `auth.test`, `apps.connections.open`,
 * `conversations.replies` / `.history` / `.info`, `users.info` and `assistant.threads.setStatus`.
 */
import { failure, type MethodHandler, ok, resolveChannel, stringArg, wireMessage } from './method-handler.js';
import type { SlackMessage } from './slack-state.js';

const authTest: MethodHandler = (_args, { ids }) =>
  ok({
    url: `https://${ids.teamDomain}.slack.com/`,
    team: ids.teamDomain,
    user: ids.botName,
    team_id: ids.teamId,
    user_id: ids.botUserId,
    bot_id: ids.botId,
    is_enterprise_install: false,
  });

const connectionsOpen: MethodHandler = (_args, context) => ok({ url: context.openConnection() });

/** A thread's parent carries `reply_count` / `latest_reply` in `conversations.replies`. */
function withReplyCounts(message: SlackMessage, thread: SlackMessage[]) {
  const replies = thread.filter((candidate) => candidate.ts !== message.ts);
  if (replies.length === 0) return wireMessage(message);
  return {
    ...wireMessage(message),
    thread_ts: message.ts,
    reply_count: replies.length,
    reply_users: [...new Set(replies.map((reply) => reply.user))],
    latest_reply: replies.at(-1)?.ts,
  };
}

function limitArg(args: Record<string, unknown>): number {
  const limit = Number(args.limit);
  return Number.isInteger(limit) && limit > 0 ? limit : 1000;
}

const replies: MethodHandler = (args, { state }) => {
  const channel = resolveChannel(state, stringArg(args, 'channel'));
  if (!channel) return failure('channel_not_found');
  const ts = stringArg(args, 'ts') ?? '';
  const thread = state.threadMessages(channel.id, ts);
  if (thread.length === 0) return failure('thread_not_found');
  const messages = thread
    .slice(0, limitArg(args))
    .map((message) => (message.ts === ts ? withReplyCounts(message, thread) : wireMessage(message)));
  return ok({ messages, has_more: false, response_metadata: { next_cursor: '' } });
};

const history: MethodHandler = (args, { state }) => {
  const channel = resolveChannel(state, stringArg(args, 'channel'));
  if (!channel) return failure('channel_not_found');
  const all = state.channelMessages(channel.id);
  const topLevel = all.filter((message) => message.thread_ts === undefined || message.thread_ts === message.ts);
  const messages = topLevel
    .reverse()
    .slice(0, limitArg(args))
    .map((message) => withReplyCounts(message, state.threadMessages(channel.id, message.ts)));
  return ok({ messages, has_more: false, response_metadata: { next_cursor: '' } });
};

const conversationInfo: MethodHandler = (args, { state }) => {
  const channel = resolveChannel(state, stringArg(args, 'channel'));
  if (!channel) return failure('channel_not_found');
  return ok({
    channel: {
      id: channel.id,
      name: channel.name,
      is_channel: !channel.isIm,
      is_im: channel.isIm,
      is_private: channel.id.startsWith('G'),
      is_member: true,
      ...(channel.user === undefined ? {} : { user: channel.user }),
    },
  });
};

const usersInfo: MethodHandler = (args, { ids }) => {
  const id = stringArg(args, 'user') ?? '';
  if (!/^[UW]/.test(id)) return failure('user_not_found');
  const isBot = id === ids.botUserId;
  const name = isBot ? ids.botName : id.toLowerCase();
  return ok({
    user: {
      id,
      team_id: ids.teamId,
      name,
      real_name: name,
      deleted: false,
      is_bot: isBot,
      tz: 'UTC',
      tz_offset: 0,
      profile: { display_name: name, real_name: name, team: ids.teamId },
    },
  });
};

/** `assistant.threads.setStatus` needs `channel_id` and `thread_ts` (title and prompts: assistant-methods.ts). */
const setStatus: MethodHandler = (args, { state }) => {
  if (!resolveChannel(state, stringArg(args, 'channel_id'))) return failure('channel_not_found');
  if (stringArg(args, 'thread_ts') === undefined) return failure('invalid_arguments');
  return ok();
};

export const workspaceMethods: Record<string, MethodHandler> = {
  'auth.test': authTest,
  'apps.connections.open': connectionsOpen,
  'conversations.replies': replies,
  'conversations.history': history,
  'conversations.info': conversationInfo,
  'users.info': usersInfo,
  'assistant.threads.setStatus': setStatus,
};
