/**
 * The CDN side: attachment URLs like Discord's
 * `https://cdn.discordapp.com/attachments/{channel}/{attachment}/{filename}?ex=…&is=…&hm=…`, served
 * from the stand-in at `/attachments/…`. As on Discord the signed query is part of the URL: a bot
 * that drops it (or rebuilds the URL) gets 404, which Discord answers with "This content is no
 * longer available."
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DiscordState } from './discord-state.js';

const SIGNING_KEY = 'discord-stand-in-cdn';
/** Discord's signed attachment URLs expire after about a day. */
const URL_LIFETIME_SECONDS = 24 * 60 * 60;

function signature(path: string, expires: string, issued: string): string {
  return createHmac('sha256', SIGNING_KEY).update(`${path}|${expires}|${issued}`).digest('hex');
}

/** The signed URL of an attachment, on the stand-in's own host. */
export function attachmentUrl(
  baseUrl: string,
  input: { channelId: string; attachmentId: string; filename: string },
): string {
  const path = `/attachments/${input.channelId}/${input.attachmentId}/${encodeURIComponent(input.filename)}`;
  const issuedSeconds = Math.floor(Date.now() / 1000);
  const issued = issuedSeconds.toString(16);
  const expires = (issuedSeconds + URL_LIFETIME_SECONDS).toString(16);
  return `${baseUrl}${path}?ex=${expires}&is=${issued}&hm=${signature(path, expires, issued)}&`;
}

/** `GET /attachments/{channel}/{attachment}/{filename}?ex&is&hm`. */
export function serveAttachment(request: IncomingMessage, response: ServerResponse, state: DiscordState): void {
  const url = new URL(request.url ?? '/', 'http://stand-in.local');
  const [, , , attachmentId = ''] = url.pathname.split('/');
  const expires = url.searchParams.get('ex') ?? '';
  const issued = url.searchParams.get('is') ?? '';
  const attachment = state.attachments.get(attachmentId);
  const valid =
    attachment !== undefined &&
    url.searchParams.get('hm') === signature(url.pathname, expires, issued) &&
    Number.parseInt(expires, 16) * 1000 > Date.now();
  if (!valid || request.method !== 'GET') {
    const text = 'This content is no longer available.';
    response.writeHead(404, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) });
    response.end(text);
    return;
  }
  response.writeHead(200, {
    'content-type': attachment.content_type,
    'content-length': attachment.bytes.length,
    'content-disposition': `attachment; filename="${encodeURIComponent(attachment.filename)}"`,
  });
  response.end(attachment.bytes);
}
