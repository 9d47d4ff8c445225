/**
 * The two file URLs that are not Web API methods: the upload URL from `files.getUploadURLExternal`
 * (the SDK POSTs the bytes as a multipart field named `body`; anything but HTTP 200 fails the
 * upload) and the private download URL (`url_private[_download]`, bot token as Bearer).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerToken, readBody, readMultipart, sendText } from './http-body.js';
import type { SlackState } from './slack-state.js';

/** `POST /upload/v1/<file id>`. */
export async function receiveUpload(
  request: IncomingMessage,
  response: ServerResponse,
  state: SlackState,
  fileId: string,
): Promise<void> {
  const file = state.files.get(fileId);
  const body = await readBody(request);
  if (!file) {
    sendText(response, 404, `no pending upload ${fileId}`);
    return;
  }
  let bytes = body;
  if ((request.headers['content-type'] ?? '').startsWith('multipart/form-data')) {
    const field = (await readMultipart(request, body)).get('body');
    if (field === null || typeof field === 'string') {
      sendText(response, 400, 'multipart upload without a file field named "body"');
      return;
    }
    bytes = Buffer.from(await field.arrayBuffer());
  }
  file.bytes = bytes;
  state.changed();
  sendText(response, 200, `OK - ${bytes.length}`);
}

/**
 * `GET /files-pri/<team>-<file id>/[download/]<name>`. Without the bot token Slack answers an HTML
 * login page with status 200; the stand-in answers 403 so the mistake is plain.
 */
export function serveDownload(
  request: IncomingMessage,
  response: ServerResponse,
  state: SlackState,
  options: { botToken: string; fileId: string },
): void {
  if (bearerToken(request) !== options.botToken) {
    sendText(response, 403, 'Slack stand-in: url_private downloads need "Authorization: Bearer <bot token>"');
    return;
  }
  const file = state.files.get(options.fileId);
  if (!file?.bytes) {
    sendText(response, 404, `no file ${options.fileId}`);
    return;
  }
  response.writeHead(200, {
    'content-type': file.mimetype,
    'content-length': file.bytes.length,
    'content-disposition': `attachment; filename="${encodeURIComponent(file.name)}"`,
  });
  response.end(file.bytes);
}
