/**
 * Reading request bodies and writing replies for the stand-in's HTTP side: form, JSON and multipart
 * bodies as the Slack SDK sends them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Json } from './slack-state.js';

/** Form fields the SDK sends as JSON strings (it JSON-encodes every non-scalar argument). */
const JSON_FIELDS = new Set([
  'attachments',
  'blocks',
  'chunks',
  'file_uploads',
  'files',
  'loading_messages',
  'metadata',
  'prompts',
  'view',
]);

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The fields of a multipart body (files as `File`), parsed by the platform's own `Request`. */
export async function readMultipart(request: IncomingMessage, body: Buffer): Promise<FormData> {
  const headers = new Headers();
  const contentType = request.headers['content-type'];
  if (contentType) headers.set('content-type', contentType);
  return new Request('http://stand-in.local/', { method: 'POST', headers, body }).formData();
}

/** Web API arguments from a form, JSON or multipart body, with JSON-string fields parsed. */
export async function readArgs(request: IncomingMessage): Promise<Json> {
  const body = await readBody(request);
  const contentType = request.headers['content-type'] ?? '';
  if (contentType.startsWith('application/json')) return body.length === 0 ? {} : (JSON.parse(body.toString()) as Json);
  const fields: Json = {};
  if (contentType.startsWith('multipart/form-data')) {
    for (const [key, value] of await readMultipart(request, body)) {
      fields[key] = typeof value === 'string' ? value : Buffer.from(await value.arrayBuffer());
    }
  } else {
    for (const [key, value] of Object.entries(parseQuery(body.toString()))) fields[key] = value;
  }
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (JSON_FIELDS.has(key) && typeof value === 'string') fields[key] = parseJsonOrKeep(value);
  }
  return fields;
}

function parseJsonOrKeep(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Json = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(headers as Record<string, string>),
  });
  response.end(text);
}

export function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** The bearer token of a request, if any. */
export function bearerToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  return header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
}
