/**
 * Builders of the payloads Slack sends to an app, shared by both lanes: the Socket Mode side wraps
 * them in envelopes, the HTTP lane signs and POSTs them (`signedRequest`). Shapes follow what Slack
 * sends (`event_callback` with `authorizations`, `block_actions` with `container` and `message`,
 * `view_submission` with `state.values`).
 */
import { randomBytes } from 'node:crypto';
import type { Json, SlackIds, SlackMessage } from './slack-state.js';

/** The verification token Slack still puts in payloads (Bolt ignores it). */
const VERIFICATION_TOKEN = 'stand-in-verification-token';

function randomId(prefix: string): string {
  return `${prefix}${randomBytes(5).toString('hex').toUpperCase()}`;
}

/** `{ id, username, name, team_id }` as interactive payloads carry the acting user. */
export function userRef(ids: SlackIds, user: string): Json {
  const name = user.toLowerCase();
  return { id: user, username: name, name, team_id: ids.teamId };
}

/** The Events API envelope (`type: 'event_callback'`) around one event. */
export function eventCallback(ids: SlackIds, event: Json, eventId = randomId('Ev0')): Json {
  return {
    token: VERIFICATION_TOKEN,
    team_id: ids.teamId,
    context_team_id: ids.teamId,
    context_enterprise_id: null,
    api_app_id: ids.appId,
    event,
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      { enterprise_id: null, team_id: ids.teamId, user_id: ids.botUserId, is_bot: true, is_enterprise_install: false },
    ],
    is_ext_shared_channel: false,
    event_context: randomId('4-'),
  };
}

/** The challenge Slack sends when an Events API request URL is saved. */
export function urlVerification(challenge: string): Json {
  return { token: VERIFICATION_TOKEN, challenge, type: 'url_verification' };
}

/** The `message` event for a stored message (user or bot). */
export function messageEvent(message: SlackMessage, channelType: string, teamId: string): Json {
  const { reactions: _reactions, ...fields } = message;
  return { ...fields, team: teamId, event_ts: message.ts, channel_type: channelType };
}

/** The `app_mention` event for a stored user message that mentions the bot. */
export function appMentionEvent(message: SlackMessage, teamId: string): Json {
  return {
    type: 'app_mention',
    user: message.user,
    text: message.text,
    ts: message.ts,
    channel: message.channel,
    event_ts: message.ts,
    team: teamId,
    ...(message.client_msg_id === undefined ? {} : { client_msg_id: message.client_msg_id }),
    ...(message.blocks === undefined ? {} : { blocks: message.blocks }),
    ...(message.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
    ...(message.parent_user_id === undefined ? {} : { parent_user_id: message.parent_user_id }),
  };
}

export interface ReactionAddedInput {
  user: string;
  reaction: string;
  channel: string;
  ts: string;
  /** Author of the message reacted to. */
  itemUser: string | undefined;
}

export function reactionAddedEvent(input: ReactionAddedInput): Json {
  return {
    type: 'reaction_added',
    user: input.user,
    reaction: input.reaction,
    ...(input.itemUser === undefined ? {} : { item_user: input.itemUser }),
    item: { type: 'message', channel: input.channel, ts: input.ts },
    event_ts: `${Math.floor(Date.now() / 1000)}.000100`,
  };
}

/** The element with `action_id` in a message's blocks, and the block holding it. */
export function findActionElement(
  blocks: unknown[] | undefined,
  actionId: string,
): { blockId: string; element: Json } | undefined {
  for (const block of (blocks ?? []) as Json[]) {
    const elements = [
      ...((block.elements as Json[] | undefined) ?? []),
      ...(block.accessory === undefined ? [] : [block.accessory as Json]),
      ...(block.element === undefined ? [] : [block.element as Json]),
    ];
    const element = elements.find((candidate) => candidate.action_id === actionId);
    if (element) return { blockId: String(block.block_id ?? ''), element };
  }
  return undefined;
}

export interface BlockActionsInput {
  user: string;
  channel: { id: string; name: string };
  /** The message the element is on, as Slack returns it. */
  message: Json;
  action: { actionId: string; blockId: string; type: string; value?: string; text?: unknown };
  triggerId: string;
  responseUrl: string;
}

export function blockActionsPayload(ids: SlackIds, input: BlockActionsInput): Json {
  const { message, action } = input;
  return {
    type: 'block_actions',
    user: userRef(ids, input.user),
    api_app_id: ids.appId,
    token: VERIFICATION_TOKEN,
    container: {
      type: 'message',
      message_ts: message.ts,
      channel_id: input.channel.id,
      is_ephemeral: false,
      ...(message.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
    },
    trigger_id: input.triggerId,
    team: { id: ids.teamId, domain: ids.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    channel: input.channel,
    message,
    state: { values: {} },
    response_url: input.responseUrl,
    actions: [
      {
        type: action.type,
        action_id: action.actionId,
        block_id: action.blockId,
        ...(action.value === undefined ? {} : { value: action.value }),
        ...(action.text === undefined ? {} : { text: action.text }),
        action_ts: `${Math.floor(Date.now() / 1000)}.000200`,
      },
    ],
  };
}

/** Input values by block id, then action id, as `state.values` of a plain-text-input modal. */
export type ViewValues = Record<string, Record<string, string>>;

export function stateValues(values: ViewValues): Json {
  return Object.fromEntries(
    Object.entries(values).map(([blockId, actions]) => [
      blockId,
      Object.fromEntries(
        Object.entries(actions).map(([actionId, value]) => [actionId, { type: 'plain_text_input', value }]),
      ),
    ]),
  );
}

export function viewSubmissionPayload(
  ids: SlackIds,
  input: { user: string; view: Json; values: ViewValues; triggerId: string },
): Json {
  return {
    type: 'view_submission',
    team: { id: ids.teamId, domain: ids.teamDomain },
    user: userRef(ids, input.user),
    api_app_id: ids.appId,
    token: VERIFICATION_TOKEN,
    trigger_id: input.triggerId,
    view: { ...input.view, state: { values: stateValues(input.values) } },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

export interface SlashCommandInput {
  user: string;
  channel: { id: string; name: string };
  command: string;
  text: string;
  triggerId: string;
  responseUrl: string;
}

/** A slash command: flat string fields (a form over HTTP, an object over the socket). */
export function slashCommandPayload(ids: SlackIds, input: SlashCommandInput): Record<string, string> {
  return {
    token: VERIFICATION_TOKEN,
    team_id: ids.teamId,
    team_domain: ids.teamDomain,
    channel_id: input.channel.id,
    channel_name: input.channel.name,
    user_id: input.user,
    user_name: input.user.toLowerCase(),
    command: input.command,
    text: input.text,
    api_app_id: ids.appId,
    is_enterprise_install: 'false',
    response_url: input.responseUrl,
    trigger_id: input.triggerId,
  };
}
