/**
 * People acting in the workspace: each action changes the stand-in's state the way Slack would
 * (a message, a reaction, a shared file) and sends the app what Slack sends for it over Socket
 * Mode, resolving once the app acked. Events are acked by Bolt before listeners run, so to see what
 * the bot did afterwards use `SlackStandIn.waitFor`.
 */
import { randomUUID } from 'node:crypto';
import {
  appMentionEvent,
  blockActionsPayload,
  eventCallback,
  findActionElement,
  messageEvent,
  reactionAddedEvent,
  slashCommandPayload,
  type ViewValues,
  viewSubmissionPayload,
} from './events.js';
import { fileObject, mimeTypeOf } from './file-methods.js';
import { type MethodContext, wireMessage } from './method-handler.js';
import type { ResponseUrls } from './response-url.js';
import type { Json, SlackFile, SlackMessage, SlackState } from './slack-state.js';
import type { SocketModeServer } from './socket-mode.js';

export interface UserActionContext {
  state: SlackState;
  socket: SocketModeServer;
  responseUrls: ResponseUrls;
  methods: MethodContext;
}

/** The result of a click: what the app can use and what it acked with. */
export interface SlackClick {
  triggerId: string;
  responseUrl: string;
  ack: Json;
}

/** Rich-text blocks as Slack's clients attach them, with `<@U…>` as user elements. */
export function richText(text: string): unknown[] {
  const elements = text
    .split(/(<@[UW][A-Z0-9]+>)/)
    .filter((part) => part !== '')
    .map((part) => {
      const mention = /^<@([UW][A-Z0-9]+)>$/.exec(part);
      return mention ? { type: 'user', user_id: mention[1] } : { type: 'text', text: part };
    });
  return [
    { type: 'rich_text', block_id: randomUUID().slice(0, 5), elements: [{ type: 'rich_text_section', elements }] },
  ];
}

function sendEvent(context: UserActionContext, event: Json): Promise<Json> {
  return context.socket.deliver('events_api', eventCallback(context.state.ids, event), false);
}

/** Stores a message by `user` and sends its `message` event (plus `app_mention` when it names the bot). */
async function postAsUser(
  context: UserActionContext,
  input: { user: string; channel: string; text: string; threadTs?: string | undefined; extra?: Json },
): Promise<SlackMessage> {
  const { state } = context;
  const channel = state.ensureChannel(input.channel);
  const parent = input.threadTs === undefined ? undefined : state.findMessage(channel.id, input.threadTs);
  const message = state.addMessage({
    type: 'message',
    channel: channel.id,
    ts: state.nextTs(),
    text: input.text,
    user: input.user,
    team: state.ids.teamId,
    client_msg_id: randomUUID(),
    ...(input.text === '' ? {} : { blocks: richText(input.text) }),
    ...(input.threadTs === undefined ? {} : { thread_ts: input.threadTs }),
    ...(parent?.user === undefined ? {} : { parent_user_id: parent.user }),
    ...input.extra,
  });
  if (!channel.isIm && input.text.includes(`<@${state.ids.botUserId}>`)) {
    await sendEvent(context, appMentionEvent(message, state.ids.teamId));
  }
  await sendEvent(context, messageEvent(message, state.channelType(channel.id), state.ids.teamId));
  return message;
}

/** `text` with the bot's mention in front, unless it already names the bot. */
export function mentionText(context: UserActionContext, text: string): string {
  const mention = `<@${context.state.ids.botUserId}>`;
  return text.includes(mention) ? text : `${mention} ${text}`;
}

export async function postMention(
  context: UserActionContext,
  input: { user: string; channel: string; text: string; threadTs?: string },
): Promise<string> {
  return (await postAsUser(context, { ...input, text: mentionText(context, input.text) })).ts;
}

export async function postReply(
  context: UserActionContext,
  input: { user: string; channel: string; threadTs: string; text: string },
): Promise<string> {
  return (await postAsUser(context, input)).ts;
}

export async function postDirectMessage(
  context: UserActionContext,
  input: { user: string; text: string; threadTs?: string },
): Promise<string> {
  const channel = context.state.imChannel(input.user);
  return (await postAsUser(context, { ...input, channel: channel.id })).ts;
}

function requireMessage(state: SlackState, channel: string, ts: string, action: string): SlackMessage {
  const message = state.findMessage(channel, ts);
  if (!message) throw new Error(`Slack stand-in: ${action}: no message ${ts} in channel ${channel}`);
  return message;
}

export async function addUserReaction(
  context: UserActionContext,
  input: { user: string; channel: string; ts: string; reaction: string },
): Promise<void> {
  const message = requireMessage(context.state, input.channel, input.ts, 'react');
  if (!context.state.addReaction(message, input.reaction, input.user)) return;
  await sendEvent(context, reactionAddedEvent({ ...input, itemUser: message.user }));
}

export async function clickElement(
  context: UserActionContext,
  input: { user: string; channel: string; messageTs: string; actionId: string; value?: string; blockId?: string },
): Promise<SlackClick> {
  const { state } = context;
  const message = requireMessage(state, input.channel, input.messageTs, 'click');
  const found = findActionElement(message.blocks, input.actionId);
  if (!found && input.blockId === undefined) {
    throw new Error(
      `Slack stand-in: click: message ${input.messageTs} has no element with action_id "${input.actionId}"` +
        ' (pass blockId to click one that is not in its blocks)',
    );
  }
  const element = found?.element ?? {};
  const value = input.value ?? (typeof element.value === 'string' ? element.value : undefined);
  const triggerId = state.issueTrigger(input.user);
  const responseUrl = context.responseUrls.issue(context.methods.baseUrl, {
    channel: message.channel,
    user: input.user,
    messageTs: message.ts,
    ...(message.thread_ts === undefined ? {} : { threadTs: message.thread_ts }),
  });
  const channel = state.ensureChannel(message.channel);
  const payload = blockActionsPayload(state.ids, {
    user: input.user,
    channel: { id: channel.id, name: channel.name },
    message: wireMessage(message),
    action: {
      actionId: input.actionId,
      blockId: input.blockId ?? found?.blockId ?? '',
      type: typeof element.type === 'string' ? element.type : 'button',
      ...(value === undefined ? {} : { value }),
      ...(element.text === undefined ? {} : { text: element.text }),
    },
    triggerId,
    responseUrl,
  });
  const ack = await context.socket.deliver('interactive', payload, false);
  return { triggerId, responseUrl, ack };
}

/** Submits an open modal; resolves with the ack payload (e.g. `{response_action:'errors',errors}`). */
export async function submitOpenView(
  context: UserActionContext,
  input: { user: string; viewId: string; values: ViewValues },
): Promise<Json> {
  const { state } = context;
  const view = state.views.get(input.viewId);
  if (!view?.open) throw new Error(`Slack stand-in: submitView: no open view ${input.viewId}`);
  const triggerId = state.issueTrigger(input.user);
  const payload = viewSubmissionPayload(state.ids, {
    user: input.user,
    view: view.view,
    values: input.values,
    triggerId,
  });
  const ack = await context.socket.deliver('interactive', payload, true);
  const action = ack.response_action;
  if (action === 'update' && typeof ack.view === 'object' && ack.view !== null) {
    view.view = { ...view.view, ...(ack.view as Json) };
  } else if (action === 'clear') {
    for (const candidate of state.views.values()) if (candidate.user === view.user) candidate.open = false;
  } else if (action !== 'errors' && action !== 'push') {
    view.open = false;
  }
  state.changed();
  return ack;
}

/** A file a user shares in a channel or thread. */
export interface ShareFileInput {
  user: string;
  channel: string;
  threadTs?: string;
  name: string;
  mimetype?: string;
  content: Buffer;
  title?: string;
  text?: string;
}

export async function shareUserFile(
  context: UserActionContext,
  input: ShareFileInput,
): Promise<{ ts: string; fileId: string }> {
  const { state } = context;
  const file: SlackFile = {
    id: state.nextId('F'),
    name: input.name,
    title: input.title ?? input.name,
    mimetype: input.mimetype ?? mimeTypeOf(input.name),
    user: input.user,
    bytes: input.content,
    channels: [input.channel],
    ...(input.threadTs === undefined ? {} : { threadTs: input.threadTs }),
    created: Math.floor(Date.now() / 1000),
  };
  state.files.set(file.id, file);
  const message = await postAsUser(context, {
    user: input.user,
    channel: input.channel,
    text: input.text ?? '',
    threadTs: input.threadTs,
    extra: { subtype: 'file_share', upload: true, display_as_bot: false, files: [fileObject(file, context.methods)] },
  });
  return { ts: message.ts, fileId: file.id };
}

export async function runSlashCommand(
  context: UserActionContext,
  input: { user: string; channel: string; command: string; text: string },
): Promise<SlackClick> {
  const { state } = context;
  const channel = state.ensureChannel(input.channel);
  const triggerId = state.issueTrigger(input.user);
  const responseUrl = context.responseUrls.issue(context.methods.baseUrl, { channel: channel.id, user: input.user });
  const payload = slashCommandPayload(state.ids, {
    ...input,
    channel: { id: channel.id, name: channel.name },
    triggerId,
    responseUrl,
  });
  const ack = await context.socket.deliver('slash_commands', payload, true);
  return { triggerId, responseUrl, ack };
}
