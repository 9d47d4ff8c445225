/**
 * What a REST route answers, and Discord's error shapes. Errors are `{ code, message, errors? }`
 * with the HTTP status Discord uses; `@discordjs/rest` turns a 4xx into a `DiscordAPIError`
 * (`error.code`, `error.status`, `error.rawError`) and retries a 5xx `retries` times.
 * JSON always goes out as `content-type: application/json` (anything else the SDK reads as bytes).
 */
import type { ServerResponse } from 'node:http';

export interface RestReply {
  status: number;
  /** Omitted for 204. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** A Discord API error, thrown by route handlers and answered as `{ code, message, errors? }`. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: unknown,
  ) {
    super(message);
    this.name = 'RestError';
  }

  reply(): RestReply {
    const body = {
      message: this.message,
      code: this.code,
      ...(this.errors === undefined ? {} : { errors: this.errors }),
    };
    return { status: this.status, body };
  }
}

export const json = (body: unknown, status = 200): RestReply => ({ status, body });
export const noContent = (): RestReply => ({ status: 204 });

/** The error codes the stand-in uses (JSON error codes in Discord's docs, `topics/opcodes-and-status-codes`). */
export const errors = {
  unauthorized: () => new RestError(401, 0, '401: Unauthorized'),
  unknownChannel: () => new RestError(404, 10003, 'Unknown Channel'),
  unknownMessage: () => new RestError(404, 10008, 'Unknown Message'),
  unknownWebhook: () => new RestError(404, 10015, 'Unknown Webhook'),
  unknownMember: () => new RestError(404, 10007, 'Unknown Member'),
  unknownUser: () => new RestError(404, 10013, 'Unknown User'),
  unknownGuild: () => new RestError(404, 10004, 'Unknown Guild'),
  unknownCommand: () => new RestError(404, 10063, 'Unknown application command'),
  unknownInteraction: () => new RestError(404, 10062, 'Unknown interaction'),
  unknownEmoji: () => new RestError(400, 10014, 'Unknown Emoji'),
  alreadyAcknowledged: () => new RestError(400, 40060, 'Interaction has already been acknowledged.'),
  invalidWebhookToken: () => new RestError(401, 50027, 'Invalid Webhook Token'),
  emptyMessage: () => new RestError(400, 50006, 'Cannot send an empty message'),
  notAuthor: () => new RestError(403, 50005, 'Cannot edit a message authored by another user'),
  missingPermissions: () => new RestError(403, 50013, 'Missing Permissions'),
  notYourApplication: () =>
    new RestError(403, 20012, 'You are not authorized to perform this action on this application'),
  wrongChannelType: () => new RestError(400, 50024, 'Cannot execute action on this channel type'),
  threadExists: () => new RestError(400, 160004, 'A thread has already been created for this message'),
  tooLarge: () => new RestError(413, 40005, 'Request entity too large'),
  notFound: (what: string) => new RestError(404, 0, `404: Not Found (${what})`),
  /** 50035 with Discord's nested `errors` object: `{ field: { _errors: [{ code, message }] } }`. */
  invalidFormBody: (field: string, code: string, message: string) =>
    new RestError(400, 50035, 'Invalid Form Body', nestedError(field, code, message)),
};

/** `content` → `{content:{_errors:[…]}}`, `data.components.0` → `{data:{components:{0:{_errors:[…]}}}}`. */
function nestedError(field: string, code: string, message: string): unknown {
  return field
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), { _errors: [{ code, message }] });
}

export function sendReply(response: ServerResponse, reply: RestReply): void {
  const headers: Record<string, string | number> = { ...reply.headers };
  if (reply.status === 204 || reply.body === undefined) {
    response.writeHead(reply.status, headers);
    response.end();
    return;
  }
  const text = JSON.stringify(reply.body);
  headers['content-type'] = 'application/json';
  headers['content-length'] = Buffer.byteLength(text);
  response.writeHead(reply.status, headers);
  response.end(text);
}
