/**
 * What a Web API method handler is and the small helpers every handler uses: Slack's reply shapes
 * (`{ok:true,…}` / `{ok:false,error}`), argument readers, channel lookup and the bot's messages.
 */
import type { Json, SlackChannel, SlackIds, SlackMessage, SlackState } from './slack-state.js';

export interface MethodContext {
  state: SlackState;
  ids: SlackIds;
  /** `http://127.0.0.1:<port>`, for URLs the stand-in serves (uploads, downloads, response_url). */
  baseUrl: string;
  /** Called with each message the bot posted, so it can be echoed as a `message` event. */
  botPosted: (message: SlackMessage) => void;
  /** A fresh Socket Mode URL for `apps.connections.open`. */
  openConnection: () => string;
}

/** Answers one method: the JSON body of an HTTP 200 reply. */
export type MethodHandler = (args: Json, context: MethodContext) => Json;

export function ok(fields: Json = {}): Json {
  return { ok: true, ...fields };
}

export function failure(error: string): Json {
  return { ok: false, error };
}

/** A string argument; numbers are accepted as their text (forms carry everything as text anyway). */
export function stringArg(args: Json, name: string): string | undefined {
  const value = args[name];
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

export function arrayArg(args: Json, name: string): unknown[] | undefined {
  const value = args[name];
  return Array.isArray(value) ? value : undefined;
}

/** A channel by id; a user id (`U…`) means the bot's DM with that user, as in Slack. */
export function resolveChannel(state: SlackState, id: string | undefined): SlackChannel | undefined {
  if (id === undefined) return undefined;
  if (/^[UW]/.test(id)) return state.imChannel(id);
  return state.channels.get(id);
}

/** A message as Slack returns it from the Web API (no `channel` field). */
export function wireMessage(message: SlackMessage): Json {
  const { channel: _channel, ...fields } = message;
  return fields;
}

/** A new message by the bot, with the fields Slack puts on messages posted with a bot token. */
export function botMessage(
  context: MethodContext,
  input: { channel: string; text: string; threadTs?: string | undefined; extra?: Json },
): SlackMessage {
  const { state, ids } = context;
  const parent = input.threadTs === undefined ? undefined : state.findMessage(input.channel, input.threadTs);
  return {
    type: 'message',
    channel: input.channel,
    ts: state.nextTs(),
    text: input.text,
    user: ids.botUserId,
    bot_id: ids.botId,
    app_id: ids.appId,
    team: ids.teamId,
    bot_profile: { id: ids.botId, app_id: ids.appId, name: ids.botName, team_id: ids.teamId, deleted: false },
    ...(input.threadTs === undefined ? {} : { thread_ts: input.threadTs }),
    ...(parent?.user === undefined || input.threadTs === undefined ? {} : { parent_user_id: parent.user }),
    ...input.extra,
  };
}
