/**
 * Request bodies as `@discordjs/rest` sends them: JSON (`content-type: application/json`), or
 * `multipart/form-data` when files go along, with the JSON in a field named `payload_json` and each
 * file in `files[n]` (n matching `payload_json.attachments[].id`).
 */
import type { IncomingMessage } from 'node:http';

/** One file part of a multipart request. */
export interface UploadedFile {
  /** The form field, e.g. `files[0]`. */
  field: string;
  /** The `n` of `files[n]`: the id the attachment has in `payload_json.attachments`. */
  index: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export interface DiscordRequestBody {
  /** The parsed JSON (or `payload_json`); undefined for an empty body. */
  json: unknown;
  files: UploadedFile[];
  /** Bytes on the wire, for size limits. */
  size: number;
}

export async function readBytes(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Reads a JSON or multipart body; throws a `SyntaxError` for JSON that does not parse. */
export async function readDiscordBody(request: IncomingMessage): Promise<DiscordRequestBody> {
  const bytes = await readBytes(request);
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data')) {
    const text = bytes.toString('utf8');
    return { json: text.trim() === '' ? undefined : JSON.parse(text), files: [], size: bytes.length };
  }
  // The platform's own `Request` parses multipart bodies; no extra dependency needed.
  const form = await new Request('http://stand-in.local/', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: bytes,
  }).formData();
  let json: unknown;
  const files: UploadedFile[] = [];
  for (const [field, value] of form) {
    if (typeof value === 'string') {
      if (field === 'payload_json') json = JSON.parse(value);
      continue;
    }
    const index = /^files\[(.+)\]$/.exec(field)?.[1] ?? field;
    files.push({
      field,
      index,
      filename: value.name,
      contentType: value.type === '' ? 'application/octet-stream' : value.type,
      bytes: Buffer.from(await value.arrayBuffer()),
    });
  }
  return { json, files, size: bytes.length };
}
