/**
 * Files: the three steps of `files.uploadV2` (`files.getUploadURLExternal`, a POST to the upload URL
 * served by `file-transfer.ts`, `files.completeUploadExternal`) and `files.info`, plus the wire file
 * object with the `url_private_download` the stand-in serves.
 */
import { extname } from 'node:path';
import {
  arrayArg,
  botMessage,
  failure,
  type MethodContext,
  type MethodHandler,
  ok,
  resolveChannel,
  stringArg,
} from './method-handler.js';
import type { Json, SlackFile } from './slack-state.js';

const MIME_TYPES: Record<string, string> = {
  csv: 'text/csv',
  gif: 'image/gif',
  html: 'text/html',
  ipynb: 'application/json',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  json: 'application/json',
  md: 'text/markdown',
  pdf: 'application/pdf',
  png: 'image/png',
  py: 'text/x-python',
  sql: 'text/plain',
  svg: 'image/svg+xml',
  txt: 'text/plain',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

function fileType(name: string): string {
  return extname(name).slice(1).toLowerCase();
}

export function mimeTypeOf(name: string): string {
  return MIME_TYPES[fileType(name)] ?? 'application/octet-stream';
}

/** Path of a file's private download URL; `file-transfer.ts` serves it. */
export function downloadPath(teamId: string, file: SlackFile): string {
  return `/files-pri/${teamId}-${file.id}/download/${encodeURIComponent(file.name)}`;
}

/** A file as the Web API and events show it (without the bytes). */
export function fileObject(file: SlackFile, context: Pick<MethodContext, 'baseUrl' | 'ids'>): Json {
  const { baseUrl, ids } = context;
  const name = encodeURIComponent(file.name);
  return {
    id: file.id,
    created: file.created,
    timestamp: file.created,
    name: file.name,
    title: file.title,
    mimetype: file.mimetype,
    filetype: fileType(file.name),
    pretty_type: fileType(file.name).toUpperCase(),
    user: file.user,
    user_team: ids.teamId,
    editable: false,
    size: file.bytes?.length ?? 0,
    mode: 'hosted',
    is_external: false,
    external_type: '',
    is_public: !file.channels.some((channel) => channel.startsWith('D')),
    public_url_shared: false,
    display_as_bot: false,
    username: '',
    url_private: `${baseUrl}/files-pri/${ids.teamId}-${file.id}/${name}`,
    url_private_download: `${baseUrl}${downloadPath(ids.teamId, file)}`,
    permalink: `${baseUrl}/files/${file.user}/${file.id}/${name}`,
    channels: file.channels,
    ...(file.altText === undefined ? {} : { alt_txt: file.altText }),
  };
}

const getUploadUrl: MethodHandler = (args, context) => {
  const filename = stringArg(args, 'filename');
  const length = Number(stringArg(args, 'length'));
  if (!filename || !Number.isInteger(length) || length < 0) return failure('invalid_arguments');
  const altText = stringArg(args, 'alt_text');
  const file: SlackFile = {
    id: context.state.nextId('F'),
    name: filename,
    title: filename,
    mimetype: mimeTypeOf(filename),
    ...(altText === undefined ? {} : { altText }),
    user: context.ids.botUserId,
    channels: [],
    created: Math.floor(Date.now() / 1000),
  };
  context.state.files.set(file.id, file);
  return ok({ upload_url: `${context.baseUrl}/upload/v1/${file.id}`, file_id: file.id });
};

const completeUpload: MethodHandler = (args, context) => {
  const entries = (arrayArg(args, 'files') ?? []) as Array<{ id?: unknown; title?: unknown }>;
  if (entries.length === 0) return failure('invalid_arguments');
  const files: SlackFile[] = [];
  for (const entry of entries) {
    const file = context.state.files.get(String(entry.id));
    if (!file?.bytes) return failure('file_not_found');
    if (typeof entry.title === 'string' && entry.title !== '') file.title = entry.title;
    files.push(file);
  }
  const channelId = stringArg(args, 'channel_id');
  if (channelId !== undefined) {
    const channel = resolveChannel(context.state, channelId);
    if (!channel) return failure('channel_not_found');
    const threadTs = stringArg(args, 'thread_ts');
    for (const file of files) {
      file.channels.push(channel.id);
      if (threadTs !== undefined) file.threadTs = threadTs;
    }
    const blocks = arrayArg(args, 'blocks');
    const message = botMessage(context, {
      channel: channel.id,
      text: stringArg(args, 'initial_comment') ?? '',
      threadTs,
      extra: {
        subtype: 'file_share',
        upload: true,
        display_as_bot: false,
        files: files.map((file) => fileObject(file, context)),
        ...(blocks ? { blocks } : {}),
      },
    });
    context.state.addMessage(message);
    context.botPosted(message);
  }
  context.state.changed();
  return ok({ files: files.map((file) => fileObject(file, context)) });
};

const fileInfo: MethodHandler = (args, context) => {
  const file = context.state.files.get(stringArg(args, 'file') ?? '');
  if (!file?.bytes) return failure('file_not_found');
  return ok({ file: fileObject(file, context), comments: [], response_metadata: { next_cursor: '' } });
};

export const fileMethods: Record<string, MethodHandler> = {
  'files.getUploadURLExternal': getUploadUrl,
  'files.completeUploadExternal': completeUpload,
  'files.info': fileInfo,
};
