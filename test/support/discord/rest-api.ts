/**
 * `/api/v10/*`: decodes the path (`%40original`, `%E2%9C%85`), reads the JSON or multipart body,
 * finds the route, checks `Authorization: Bot <token>` (interaction callbacks and webhooks go
 * without), applies a queued fault, runs the route and records the call. Unknown routes are 404 with
 * the route in the message and logged, so a route the SDK needs and the stand-in lacks is obvious.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DiscordCall } from './discord-model.js';
import { type DiscordRequestBody, readDiscordBody } from './multipart.js';
import type { RestContext } from './rest-context.js';
import { RestError, type RestReply, sendReply } from './rest-reply.js';
import { matchRoute, type RoutePattern, routeMatches } from './rest-routes.js';

/**
 * What the next matching call gets instead of its answer. A 429 carries Discord's rate-limit headers
 * (`Retry-After`, `X-RateLimit-*`), which `@discordjs/rest` waits out and retries (not counted
 * against `retries`); a 5xx is retried `retries` times; other statuses become `DiscordAPIError`s.
 */
export type DiscordFault =
  | { status: 429; retryAfterSeconds: number; global?: boolean; scope?: 'user' | 'shared' | 'global' }
  | { status: number; code?: number; message?: string };

export class RestApi {
  private readonly faults: Array<{ pattern: RoutePattern; fault: DiscordFault }> = [];

  constructor(
    private readonly token: string,
    private readonly context: RestContext,
  ) {}

  /** Queues a fault for the next call matching `pattern` (several queue in order). */
  failNext(pattern: RoutePattern, fault: DiscordFault): void {
    this.faults.push({ pattern, fault });
  }

  /** Handles a request whose path starts with `/api/`. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://stand-in.local');
    const method = request.method ?? 'GET';
    const [, , version = '', ...raw] = url.pathname.split('/');
    const segments = raw.filter((segment) => segment !== '').map((segment) => decodeURIComponent(segment));
    const route = `/${segments.join('/')}`;
    const call: DiscordCall = {
      method,
      route,
      query: Object.fromEntries(url.searchParams),
      body: undefined,
      at: Date.now(),
      status: 0,
    };
    const { state } = this.context;
    state.calls.push(call);
    try {
      const reply = await this.answer(request, { method, version, segments, route, url, call });
      call.status = reply.status;
      const code = (reply.body as { code?: unknown } | undefined)?.code;
      if (reply.status >= 400 && typeof code === 'number') call.code = code;
      sendReply(response, reply);
    } finally {
      state.changed();
    }
  }

  private async answer(
    request: IncomingMessage,
    input: { method: string; version: string; segments: string[]; route: string; url: URL; call: DiscordCall },
  ): Promise<RestReply> {
    const { method, route, call } = input;
    let body: DiscordRequestBody;
    try {
      body = await readDiscordBody(request);
    } catch {
      return new RestError(400, 50109, 'The request body contains invalid JSON.').reply();
    }
    call.body = body.json;
    if (body.files.length > 0) {
      call.files = body.files.map(({ field, filename, contentType, bytes }) => ({
        field,
        filename,
        contentType,
        bytes,
      }));
    }
    const match = input.version === 'v10' ? matchRoute(method, input.segments) : { kind: 'none' as const };
    if (match.kind !== 'found') {
      const status = match.kind === 'wrong-method' ? 405 : 404;
      const text = `${status === 405 ? '405: Method Not Allowed' : '404: Not Found'} (Discord stand-in has no route for ${method} ${input.url.pathname})`;
      console.error(text);
      return { status, body: { message: text, code: 0 } };
    }
    call.template = match.definition.template;
    if (match.definition.auth && request.headers.authorization !== `Bot ${this.token}`) {
      return new RestError(401, 0, '401: Unauthorized').reply();
    }
    const queued = this.faults.findIndex((entry) => routeMatches(entry.pattern, method, route));
    const fault = queued >= 0 ? this.faults.splice(queued, 1)[0]?.fault : undefined;
    if (fault) return faultReply(fault, match.definition.template);
    const routeRequest = {
      method,
      params: match.params,
      query: input.url.searchParams,
      json: body.json,
      files: body.files,
    };
    try {
      return await match.definition.handle(routeRequest, this.context);
    } catch (error) {
      if (error instanceof RestError) return error.reply();
      console.error(`Discord stand-in failed in ${method} ${route}:`, error);
      return { status: 500, body: { message: `500: Discord stand-in failed: ${String(error)}`, code: 0 } };
    }
  }
}

function faultReply(fault: DiscordFault, template: string): RestReply {
  if (fault.status === 429 && 'retryAfterSeconds' in fault) {
    const seconds = fault.retryAfterSeconds;
    const global = fault.global === true;
    const bucketHeaders = global
      ? {}
      : {
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': (Date.now() / 1000 + seconds).toFixed(3),
          'x-ratelimit-reset-after': seconds.toFixed(3),
          'x-ratelimit-bucket': Buffer.from(template).toString('hex').slice(0, 32),
        };
    return {
      status: 429,
      headers: {
        'retry-after': String(seconds),
        'x-ratelimit-scope': fault.scope ?? (global ? 'global' : 'user'),
        ...(global ? { 'x-ratelimit-global': 'true' } : {}),
        ...bucketHeaders,
      },
      body: { message: 'You are being rate limited.', retry_after: seconds, global },
    };
  }
  const text = 'message' in fault && fault.message !== undefined ? fault.message : `${fault.status}: Stand-in fault`;
  return { status: fault.status, body: { message: text, code: ('code' in fault && fault.code) || 0 } };
}
