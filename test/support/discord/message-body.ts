/**
 * Messages the bot creates or edits, built from a REST body the way Discord builds them: content
 * limits (2,000 characters, not empty), attachments from `files[n]` matched to
 * `payload_json.attachments[{id:n}]` (bytes, filename, description), mentions parsed from `<@id>`,
 * replies through `message_reference`.
 */
import { attachmentUrl } from './cdn.js';
import type { DiscordMessage, DiscordUser, Json, StoredAttachment } from './discord-model.js';
import { discordTimestamp } from './discord-state.js';
import type { UploadedFile } from './multipart.js';
import { wireMessage } from './payloads.js';
import type { RestContext } from './rest-context.js';
import { errors } from './rest-reply.js';

export const MAX_CONTENT_LENGTH = 2000;
const MAX_ATTACHMENTS = 10;
const MAX_CUSTOM_ID_LENGTH = 100;

/** Throws Discord's errors for content over 2,000 characters, too many or too large files, long custom ids. */
export function checkMessageBody(context: RestContext, body: Json, files: UploadedFile[]): void {
  if (typeof body.content === 'string' && body.content.length > MAX_CONTENT_LENGTH) {
    throw errors.invalidFormBody(
      'content',
      'BASE_TYPE_MAX_LENGTH',
      `Must be ${MAX_CONTENT_LENGTH} or fewer in length.`,
    );
  }
  if (files.length > MAX_ATTACHMENTS) {
    throw errors.invalidFormBody('attachments', 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
  }
  if (files.some((file) => file.bytes.length > context.limits.attachmentSizeLimitBytes)) throw errors.tooLarge();
  const longId = customIds(body.components).find((id) => id.length > MAX_CUSTOM_ID_LENGTH);
  if (longId !== undefined) {
    throw errors.invalidFormBody('components', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  }
}

/** Every `custom_id` in a component tree (action rows, labels, containers). */
export function customIds(components: unknown): string[] {
  if (!Array.isArray(components)) return [];
  return components.flatMap((component: Json) => [
    ...(typeof component.custom_id === 'string' ? [component.custom_id] : []),
    ...customIds(component.components),
    ...customIds(component.component === undefined ? undefined : [component.component]),
    ...customIds(component.accessory === undefined ? undefined : [component.accessory]),
  ]);
}

function isEmpty(message: Pick<DiscordMessage, 'content' | 'embeds' | 'attachments' | 'components'> & Json): boolean {
  return (
    message.content === '' &&
    message.embeds.length === 0 &&
    message.attachments.length === 0 &&
    message.components.length === 0 &&
    message.poll === undefined &&
    message.sticker_items === undefined
  );
}

/** New attachments from the uploaded files, described by `payload_json.attachments`. */
function uploadedAttachments(context: RestContext, channelId: string, body: Json, files: UploadedFile[]) {
  const described = Array.isArray(body.attachments) ? (body.attachments as Json[]) : [];
  return files.map((file): StoredAttachment => {
    const description = described.find((attachment) => String(attachment.id) === file.index);
    const id = context.state.nextId();
    const filename = typeof description?.filename === 'string' ? description.filename : file.filename;
    const url = attachmentUrl(context.baseUrl, { channelId, attachmentId: id, filename });
    const attachment: StoredAttachment = {
      id,
      filename,
      ...(typeof description?.description === 'string' ? { description: description.description } : {}),
      content_type: file.contentType,
      size: file.bytes.length,
      url,
      proxy_url: url,
      bytes: file.bytes,
    };
    context.state.attachments.set(id, attachment);
    return attachment;
  });
}

function mentionedUsers(context: RestContext, content: string): DiscordUser[] {
  const ids = [...content.matchAll(/<@!?(\d+)>/g)].map((match) => match[1] ?? '');
  return [...new Set(ids)].filter((id) => context.state.users.has(id)).map((id) => context.state.ensureUser(id));
}

function embedsOf(body: Json): unknown[] {
  return Array.isArray(body.embeds) ? body.embeds.map((embed) => ({ type: 'rich', ...(embed as Json) })) : [];
}

/**
 * A message by the bot (or by its interaction webhook, with `extra` fields) in `channelId`.
 * `allowEmpty` is for the "thinking…" message of a deferred interaction reply.
 */
export function buildBotMessage(
  context: RestContext,
  input: { channelId: string; body: Json; files: UploadedFile[]; extra?: Json; allowEmpty?: boolean },
): DiscordMessage {
  const { state } = context;
  const { body } = input;
  checkMessageBody(context, body, input.files);
  const content = typeof body.content === 'string' ? body.content : '';
  const message: DiscordMessage = {
    id: state.nextId(),
    channel_id: input.channelId,
    guild_id: state.ids.guildId,
    author: state.bot(),
    content,
    timestamp: discordTimestamp(),
    edited_timestamp: null,
    tts: body.tts === true,
    mention_everyone: false,
    mentions: mentionedUsers(context, content),
    mention_roles: [],
    attachments: uploadedAttachments(context, input.channelId, body, input.files),
    embeds: embedsOf(body),
    components: Array.isArray(body.components) ? body.components : [],
    reactions: [],
    pinned: false,
    type: 0,
    flags: typeof body.flags === 'number' ? body.flags : 0,
    ...referenceFields(context, input.channelId, body),
    ...input.extra,
  };
  if (isEmpty(message) && !input.allowEmpty) throw errors.emptyMessage();
  return message;
}

/** `message_reference` → a reply (type 19) carrying `referenced_message`. */
function referenceFields(context: RestContext, channelId: string, body: Json): Json {
  const reference = body.message_reference as Json | undefined;
  if (typeof reference?.message_id !== 'string') return {};
  const referenced = context.state.findMessage(reference.message_id);
  if (!referenced) {
    if (reference.fail_if_not_exists === false) return {};
    throw errors.invalidFormBody('message_reference', 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', 'Unknown message');
  }
  return {
    type: 19,
    message_reference: { type: 0, message_id: referenced.id, channel_id: channelId, guild_id: referenced.guild_id },
    referenced_message: wireMessage(context.state, referenced),
  };
}

/**
 * Applies an edit: fields present in the body replace the message's; `attachments` lists the
 * attachments to keep (by id) plus new ones (by `files[n]` index); without it new files are added.
 */
export function applyMessageEdit(
  context: RestContext,
  message: DiscordMessage,
  body: Json,
  files: UploadedFile[],
): DiscordMessage {
  checkMessageBody(context, body, files);
  const next: DiscordMessage = { ...message, edited_timestamp: discordTimestamp() };
  if (typeof body.content === 'string' || body.content === null) {
    next.content = body.content ?? '';
    next.mentions = mentionedUsers(context, next.content);
  }
  if (Array.isArray(body.embeds) || body.embeds === null) next.embeds = embedsOf(body);
  if (Array.isArray(body.components) || body.components === null)
    next.components = (body.components as unknown[]) ?? [];
  if (typeof body.flags === 'number') next.flags = (message.flags & 64) | body.flags;
  const added = uploadedAttachments(context, message.channel_id, body, files);
  if (Array.isArray(body.attachments)) {
    const keep = new Set((body.attachments as Json[]).map((attachment) => String(attachment.id)));
    next.attachments = [...message.attachments.filter((attachment) => keep.has(attachment.id)), ...added];
  } else {
    next.attachments = [...message.attachments, ...added];
  }
  if (isEmpty(next)) throw errors.emptyMessage();
  Object.assign(message, next);
  context.state.recordEdit(message);
  return message;
}
