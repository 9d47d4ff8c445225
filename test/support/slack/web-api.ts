/**
 * `POST /api/<method>`: parses the SDK's form body, checks the token, applies a queued fault, runs
 * the method and records the call. Slack answers HTTP 200 with `{ok:false,error}` for every
 * platform error; only rate limits (429 + `Retry-After`) and outages change the status.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { assistantMethods } from './assistant-methods.js';
import { chatMethods } from './chat-methods.js';
import { fileMethods } from './file-methods.js';
import { bearerToken, readArgs, sendJson, sendText } from './http-body.js';
import { failure, type MethodContext, type MethodHandler } from './method-handler.js';
import type { Json, SlackCall } from './slack-state.js';
import { streamMethods } from './stream-methods.js';
import { usergroupMethods } from './usergroup-methods.js';
import { viewMethods } from './view-methods.js';
import { workspaceMethods } from './workspace-methods.js';

/**
 * What the next call to a method gets instead of its answer: an HTTP status (429 with
 * `retryAfterSeconds` becomes `Retry-After`, which the SDK waits out and retries), or a platform
 * error `{ok:false,error}`.
 */
export type SlackFault = { status: number; retryAfterSeconds?: number } | { error: string };

const METHODS: Record<string, MethodHandler> = {
  ...chatMethods,
  ...fileMethods,
  ...viewMethods,
  ...workspaceMethods,
  ...assistantMethods,
  ...streamMethods,
  ...usergroupMethods,
};

/** Methods that take the app-level (`xapp-`) token; all others take the bot token. */
const APP_TOKEN_METHODS = new Set(['apps.connections.open']);

export interface WebApiOptions {
  botToken: string;
  appToken: string;
  context: MethodContext;
}

export class WebApi {
  private readonly faults = new Map<string, SlackFault[]>();
  private readonly standing = new Map<string, SlackFault>();

  constructor(private readonly options: WebApiOptions) {}

  /** Queues a fault for the next call to `method` (several calls queue several faults). */
  failNext(method: string, fault: SlackFault): void {
    const queue = this.faults.get(method) ?? [];
    queue.push(fault);
    this.faults.set(method, queue);
  }

  /** Every call to `method` fails with `fault` from now on (a workspace without the method); undefined lifts it. */
  failAlways(method: string, fault: SlackFault | undefined): void {
    if (fault) this.standing.set(method, fault);
    else this.standing.delete(method);
  }

  async handle(request: IncomingMessage, response: ServerResponse, method: string): Promise<void> {
    const args = await readArgs(request);
    const token = bearerToken(request) ?? (typeof args.token === 'string' ? args.token : undefined);
    delete args.token;
    const call: SlackCall = { method, args, at: Date.now(), token, outcome: 'ok' };
    const { state } = this.options.context;
    state.calls.push(call);
    try {
      const fault = this.faults.get(method)?.shift() ?? this.standing.get(method);
      if (fault && 'status' in fault) {
        call.outcome = `http ${fault.status}`;
        const headers = fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
        sendJson(response, fault.status, failure(fault.status === 429 ? 'ratelimited' : 'fatal_error'), headers);
        return;
      }
      const body = fault ? failure(fault.error) : this.answer(method, args, token);
      if (body.ok === false) call.outcome = String(body.error);
      sendJson(response, 200, body);
    } catch (error) {
      call.outcome = 'http 500';
      sendText(response, 500, `Slack stand-in failed in ${method}: ${String(error)}`);
    } finally {
      state.changed();
    }
  }

  private answer(method: string, args: Json, token: string | undefined): Json {
    const handler = METHODS[method];
    if (!handler) return failure('unknown_method');
    const { botToken, appToken } = this.options;
    const wanted = APP_TOKEN_METHODS.has(method) ? appToken : botToken;
    if (token === undefined) return failure('not_authed');
    if (token !== wanted)
      return failure(token === botToken || token === appToken ? 'not_allowed_token_type' : 'invalid_auth');
    return handler(args, this.options.context);
  }
}
