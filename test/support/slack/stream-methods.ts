/**
 * Streamed messages: `chat.startStream` → `chat.appendStream`* → `chat.stopStream`, as Slack's method
 * docs describe them. The stream is a bot message in the thread whose `text` is the markdown so far;
 * the stand-in also keeps every chunk in arrival order with the call that carried it, and the task
 * display mode, so tests can read a card's status sequence. Errors as Slack names them:
 * `channel_not_found`, `invalid_arguments` (no `thread_ts`, a bad display mode, nothing to append),
 * `missing_recipient_user_id` / `missing_recipient_team_id` (outside DMs), `invalid_chunks` (a chunk
 * that is not `markdown_text{text}`, `task_update{id,title,status,details?,output?,sources?}`,
 * `plan_update{title}` or `blocks{blocks}`), `msg_too_long` (over 12,000 characters of markdown in one
 * call), `message_not_found`, and `message_not_in_streaming_state` after the stop.
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
import type { Json, SlackStreamRecord } from './slack-state.js';

/** Markdown one call may carry, in `markdown_text` and `markdown_text` chunks together. */
export const STREAM_MARKDOWN_LIMIT = 12_000;
const STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);
const MAX_BLOCKS = 50;

const isText = (value: unknown) => typeof value === 'string' && value !== '';
const optionalText = (value: unknown) => value === undefined || typeof value === 'string';

function isSource(value: unknown): boolean {
  const source = value as Json | null;
  return typeof source === 'object' && source !== null && source.type === 'url' && isText(source.url);
}

/** Whether a chunk has one of the four documented shapes. */
export function validChunk(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const chunk = value as Json;
  switch (chunk.type) {
    case 'markdown_text':
      return isText(chunk.text);
    case 'plan_update':
      return isText(chunk.title);
    case 'task_update':
      return (
        isText(chunk.id) &&
        isText(chunk.title) &&
        STATUSES.has(String(chunk.status)) &&
        optionalText(chunk.details) &&
        optionalText(chunk.output) &&
        (chunk.sources === undefined || (Array.isArray(chunk.sources) && chunk.sources.every(isSource)))
      );
    case 'blocks':
      return Array.isArray(chunk.blocks) && chunk.blocks.length > 0 && chunk.blocks.length <= MAX_BLOCKS;
    default:
      return false;
  }
}

/** The call's chunks (`markdown_text` first when given as an argument), or the error Slack gives. */
function chunksOf(args: Json): Json[] | string {
  const given = args.chunks;
  if (given !== undefined && !Array.isArray(given)) return 'invalid_chunks';
  const chunks = (given ?? []) as unknown[];
  if (!chunks.every(validChunk)) return 'invalid_chunks';
  const markdown = stringArg(args, 'markdown_text');
  const all = [...(markdown === undefined ? [] : [{ type: 'markdown_text', text: markdown }]), ...(chunks as Json[])];
  const length = all.reduce((sum, chunk) => sum + (chunk.type === 'markdown_text' ? String(chunk.text).length : 0), 0);
  return length > STREAM_MARKDOWN_LIMIT ? 'msg_too_long' : all;
}

function record(stream: SlackStreamRecord, method: string, chunks: Json[], context: MethodContext): void {
  for (const chunk of chunks) stream.chunks.push({ method, chunk });
  const message = context.state.findMessage(stream.channel, stream.ts);
  if (message) {
    message.text = stream.chunks
      .map(({ chunk }) => (chunk.type === 'markdown_text' ? String(chunk.text) : ''))
      .join('');
  }
  context.state.changed();
}

const startStream: MethodHandler = (args, context) => {
  const channel = resolveChannel(context.state, stringArg(args, 'channel'));
  if (!channel) return failure('channel_not_found');
  const threadTs = stringArg(args, 'thread_ts');
  if (!threadTs) return failure('invalid_arguments');
  const mode = stringArg(args, 'task_display_mode') ?? 'timeline';
  if (mode !== 'timeline' && mode !== 'plan') return failure('invalid_arguments');
  if (!channel.isIm && !stringArg(args, 'recipient_user_id')) return failure('missing_recipient_user_id');
  if (!channel.isIm && !stringArg(args, 'recipient_team_id')) return failure('missing_recipient_team_id');
  const chunks = chunksOf(args);
  if (typeof chunks === 'string') return failure(chunks);
  const message = botMessage(context, { channel: channel.id, text: '', threadTs });
  context.state.addMessage(message);
  const recipientUserId = stringArg(args, 'recipient_user_id');
  const recipientTeamId = stringArg(args, 'recipient_team_id');
  const stream: SlackStreamRecord = {
    channel: channel.id,
    ts: message.ts,
    threadTs,
    displayMode: mode,
    state: 'streaming',
    chunks: [],
    ...(recipientUserId ? { recipientUserId } : {}),
    ...(recipientTeamId ? { recipientTeamId } : {}),
  };
  context.state.streams.set(`${channel.id}:${message.ts}`, stream);
  record(stream, 'chat.startStream', chunks, context);
  context.botPosted(message);
  return ok({ channel: channel.id, ts: message.ts });
};

/** The stream at `channel` + `ts` still streaming, or the error Slack gives. */
function openStream(args: Json, context: MethodContext): SlackStreamRecord | string {
  const channel = resolveChannel(context.state, stringArg(args, 'channel'));
  if (!channel) return 'channel_not_found';
  const ts = stringArg(args, 'ts') ?? '';
  const stream = context.state.streams.get(`${channel.id}:${ts}`);
  if (!stream)
    return context.state.findMessage(channel.id, ts) ? 'message_not_in_streaming_state' : 'message_not_found';
  return stream.state === 'streaming' ? stream : 'message_not_in_streaming_state';
}

const appendStream: MethodHandler = (args, context) => {
  const stream = openStream(args, context);
  if (typeof stream === 'string') return failure(stream);
  const chunks = chunksOf(args);
  if (typeof chunks === 'string') return failure(chunks);
  if (chunks.length === 0) return failure('invalid_arguments');
  record(stream, 'chat.appendStream', chunks, context);
  return ok({ channel: stream.channel, ts: stream.ts });
};

const stopStream: MethodHandler = (args, context) => {
  const stream = openStream(args, context);
  if (typeof stream === 'string') return failure(stream);
  const chunks = chunksOf(args);
  if (typeof chunks === 'string') return failure(chunks);
  const blocks = arrayArg(args, 'blocks');
  if (blocks && blocks.length > MAX_BLOCKS) return failure('invalid_blocks');
  stream.state = 'stopped';
  record(stream, 'chat.stopStream', chunks, context);
  const message = context.state.findMessage(stream.channel, stream.ts);
  if (message && blocks) message.blocks = blocks;
  if (message && args.metadata !== undefined) message.metadata = args.metadata;
  return ok({ channel: stream.channel, ts: stream.ts, ...(message ? { message: wireMessage(message) } : {}) });
};

export const streamMethods: Record<string, MethodHandler> = {
  'chat.startStream': startStream,
  'chat.appendStream': appendStream,
  'chat.stopStream': stopStream,
};
