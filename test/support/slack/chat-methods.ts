/**
 * `chat.*` and `reactions.*`: the bot posting, editing and deleting messages, ephemeral messages,
 * and reactions, with the errors Slack answers (`channel_not_found`, `no_text`, `message_not_found`,
 * `cant_update_message`, `already_reacted`, `no_reaction`).
 */
import {
  arrayArg,
  botMessage,
  failure,
  type MethodContext,
  type MethodHandler,
  ok,
  resolveChannel,
  stringArg,
  wireMessage,
} from './method-handler.js';
import type { Json, SlackMessage } from './slack-state.js';

const postMessage: MethodHandler = (args, context) => {
  const channel = resolveChannel(context.state, stringArg(args, 'channel'));
  if (!channel) return failure('channel_not_found');
  const text = stringArg(args, 'text') ?? '';
  const blocks = arrayArg(args, 'blocks');
  const attachments = arrayArg(args, 'attachments');
  if (text === '' && !blocks && !attachments) return failure('no_text');
  const message = botMessage(context, {
    channel: channel.id,
    text,
    threadTs: stringArg(args, 'thread_ts'),
    extra: {
      ...(blocks ? { blocks } : {}),
      ...(attachments ? { attachments } : {}),
      ...(args.metadata === undefined ? {} : { metadata: args.metadata }),
    },
  });
  context.state.addMessage(message);
  context.botPosted(message);
  return ok({ channel: channel.id, ts: message.ts, message: wireMessage(message) });
};

/** The message at `channel` + `tsField`, or the error Slack gives. */
function findMessage(args: Json, context: MethodContext, tsField: string): SlackMessage | string {
  const channel = resolveChannel(context.state, stringArg(args, 'channel'));
  if (!channel) return 'channel_not_found';
  return context.state.findMessage(channel.id, stringArg(args, tsField) ?? '') ?? 'message_not_found';
}

/** The bot's own message at `channel` + `ts`, or the error Slack gives. */
function ownMessage(args: Json, context: MethodContext, refusal: string): SlackMessage | string {
  const message = findMessage(args, context, 'ts');
  if (typeof message !== 'string' && message.user !== context.ids.botUserId) return refusal;
  return message;
}

const update: MethodHandler = (args, context) => {
  const message = ownMessage(args, context, 'cant_update_message');
  if (typeof message === 'string') return failure(message);
  const text = stringArg(args, 'text');
  const blocks = arrayArg(args, 'blocks');
  if (text !== undefined) message.text = text;
  if (blocks) message.blocks = blocks;
  if (args.metadata !== undefined) message.metadata = args.metadata;
  message.edited = { user: context.ids.botUserId, ts: context.state.nextTs() };
  context.state.changed();
  return ok({ channel: message.channel, ts: message.ts, text: message.text, message: wireMessage(message) });
};

const deleteMessage: MethodHandler = (args, context) => {
  const message = ownMessage(args, context, 'cant_delete_message');
  if (typeof message === 'string') return failure(message);
  context.state.removeMessage(message.channel, message.ts);
  return ok({ channel: message.channel, ts: message.ts });
};

const postEphemeral: MethodHandler = (args, context) => {
  const channel = resolveChannel(context.state, stringArg(args, 'channel'));
  if (!channel) return failure('channel_not_found');
  const user = stringArg(args, 'user');
  if (!user) return failure('user_not_in_channel');
  const text = stringArg(args, 'text') ?? '';
  const blocks = arrayArg(args, 'blocks');
  if (text === '' && !blocks) return failure('no_text');
  const threadTs = stringArg(args, 'thread_ts');
  const messageTs = context.state.nextTs();
  context.state.ephemerals.push({
    channel: channel.id,
    user,
    text,
    ...(blocks ? { blocks } : {}),
    ...(threadTs === undefined ? {} : { threadTs }),
    messageTs,
    via: 'chat.postEphemeral',
  });
  context.state.changed();
  return ok({ message_ts: messageTs });
};

function reactionName(args: Json): string | undefined {
  return stringArg(args, 'name')?.replace(/^:|:$/g, '');
}

const addReaction: MethodHandler = (args, context) => {
  const message = findMessage(args, context, 'timestamp');
  if (typeof message === 'string') return failure(message);
  const name = reactionName(args);
  if (!name) return failure('invalid_name');
  const added = context.state.addReaction(message, name, context.ids.botUserId);
  return added ? ok() : failure('already_reacted');
};

const removeReaction: MethodHandler = (args, context) => {
  const message = findMessage(args, context, 'timestamp');
  if (typeof message === 'string') return failure(message);
  const removed = context.state.removeReaction(message, reactionName(args) ?? '', context.ids.botUserId);
  return removed ? ok() : failure('no_reaction');
};

const getReactions: MethodHandler = (args, context) => {
  const message = findMessage(args, context, 'timestamp');
  if (typeof message === 'string') return failure(message);
  return ok({ type: 'message', channel: message.channel, message: wireMessage(message) });
};

export const chatMethods: Record<string, MethodHandler> = {
  'chat.postMessage': postMessage,
  'chat.update': update,
  'chat.delete': deleteMessage,
  'chat.postEphemeral': postEphemeral,
  'reactions.add': addReaction,
  'reactions.remove': removeReaction,
  'reactions.get': getReactions,
};
