/**
 * The LLM stand-in: an OpenAI-compatible HTTP server that answers from a script instead of a model.
 *
 * It speaks the real wire protocol (`POST /v1/chat/completions`, JSON or server-sent events,
 * `POST /v1/embeddings` and `GET /v1/models`), so the unmodified `openai` SDK talks to it. Each chat
 * request takes the next step of the script; a step is a reply (text and/or tool calls), a fault (an
 * HTTP error, a slow answer), or a function of the conversation that returns one. Embedding requests
 * take no step: each input is embedded by the `embed` option, by default a hashed bag of words, so
 * texts sharing words come out similar. Every request is recorded as received (nothing redacted) for
 * tests to assert on. A script that runs out answers HTTP 500 saying so, so a test that expects fewer
 * model calls fails loudly.
 *
 * Used by tests and by the demo: no test-framework imports here.
 *
 * ```ts
 * const server = await startScriptedModelServer({
 *   script: [callTool('list_tables', {}), (context) => say(`Found: ${context.lastToolResult?.content}`)],
 * });
 * const client = new OpenAI({ baseURL: server.url, apiKey: 'any' });
 * // ... server.requests[0].body.messages ...
 * await server.close();
 * ```
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The part of an OpenAI chat message the script reads; the raw message is in `ScriptContext.body`. */
export interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

/** What a step sees: the conversation so far, as the request carried it. */
export interface ScriptContext {
  messages: WireMessage[];
  /** The `tools` of the request (OpenAI tool schemas), empty when none were sent. */
  tools: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  model: string;
  temperature: number | undefined;
  stream: boolean;
  /** The whole parsed request body. */
  body: Record<string, unknown>;
  /** 0-based position of this request among the chat requests the server received. */
  requestIndex: number;
  /** The last message of the conversation. */
  lastMessage: WireMessage | undefined;
  /** The last `tool` message, with the name of the tool that produced it when it can be found. */
  lastToolResult: { toolCallId: string; name: string | undefined; content: string } | undefined;
}

export interface ScriptToolCall {
  /** Defaults to `call_<request>_<index>`. */
  id?: string;
  name: string;
  /** Sent verbatim as `function.arguments`, so it may be malformed on purpose. */
  arguments: string;
}

export interface ScriptReply {
  kind: 'reply';
  text?: string;
  toolCalls?: ScriptToolCall[];
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  usage?: { promptTokens: number; completionTokens: number };
}

export interface ScriptFault {
  kind: 'fault';
  status: number;
  message: string;
  /** OpenAI error `type`, e.g. `rate_limit_exceeded`. */
  type?: string;
  headers?: Record<string, string>;
}

export interface ScriptDelay {
  kind: 'delay';
  /** Time before the status line is sent, in milliseconds. */
  delayMs: number;
  then: ScriptStep;
}

export interface ScriptMatch {
  kind: 'match';
  predicate: (context: ScriptContext) => boolean;
  then: ScriptStep;
  /** Named in the error when the predicate does not hold. */
  label: string;
}

export type ScriptStep =
  | ScriptReply
  | ScriptFault
  | ScriptDelay
  | ScriptMatch
  | ((context: ScriptContext) => ScriptStep | Promise<ScriptStep>);

// ---- step builders ---------------------------------------------------------------------------

/** The model answers with text. */
export function say(text: string): ScriptReply {
  return { kind: 'reply', text };
}

/** The model calls one tool; object arguments are sent as JSON, a string verbatim. */
export function callTool(name: string, args: unknown = {}, options: { id?: string; text?: string } = {}): ScriptReply {
  return callTools([{ name, args, ...(options.id === undefined ? {} : { id: options.id }) }], options);
}

/** The model calls several tools in one message (parallel tool calls). */
export function callTools(
  calls: Array<{ name: string; args?: unknown; id?: string }>,
  options: { text?: string } = {},
): ScriptReply {
  return {
    kind: 'reply',
    ...(options.text === undefined ? {} : { text: options.text }),
    toolCalls: calls.map((call) => ({
      name: call.name,
      arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {}),
      ...(call.id === undefined ? {} : { id: call.id }),
    })),
  };
}

/** A tool call whose arguments are not valid JSON (sent exactly as given). */
export function malformedToolCall(name: string, rawArguments = '{"sql": "SELECT 1",'): ScriptReply {
  return { kind: 'reply', toolCalls: [{ name, arguments: rawArguments }] };
}

/** Any HTTP error with an OpenAI-shaped body `{error: {message, type, code}}`. */
export function fail(
  status: number,
  message: string,
  options: { type?: string; headers?: Record<string, string> } = {},
): ScriptFault {
  return { kind: 'fault', status, message, ...options };
}

/** HTTP 429 with `Retry-After` (seconds) and, when given, `retry-after-ms`. */
export function rateLimit(options: { retryAfterSeconds?: number; retryAfterMs?: number } = {}): ScriptFault {
  const headers: Record<string, string> = {};
  if (options.retryAfterSeconds !== undefined) headers['retry-after'] = String(options.retryAfterSeconds);
  if (options.retryAfterMs !== undefined) headers['retry-after-ms'] = String(options.retryAfterMs);
  return fail(429, 'Rate limit reached for requests (scripted).', { type: 'rate_limit_exceeded', headers });
}

/** HTTP 500. */
export function serverError(
  message = 'The server had an error while processing your request (scripted).',
): ScriptFault {
  return fail(500, message, { type: 'server_error' });
}

/** Waits `delayMs` before answering with `then` (default: a short text). */
export function slow(delayMs: number, then: ScriptStep = say('(slow reply)')): ScriptDelay {
  return { kind: 'delay', delayMs, then };
}

/**
 * A step that only fits a certain conversation: when the predicate does not hold, the server
 * answers 500 naming `label` and the step stays next in line.
 */
export function when(
  predicate: (context: ScriptContext) => boolean,
  then: ScriptStep,
  label = 'predicate',
): ScriptMatch {
  return { kind: 'match', predicate, then, label };
}

// ---- the server ------------------------------------------------------------------------------

export interface RecordedRequest {
  method: string;
  /** Path with query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined for bodiless requests, the raw text when it is not JSON. */
  body: Record<string, unknown> | undefined;
  /** `Date.now()` when the request arrived, in milliseconds. */
  receivedAt: number;
}

export interface ScriptedModelServerOptions {
  script: ScriptStep[];
  /** Served by `GET /v1/models`; default `['scripted-model']`. */
  models?: string[];
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. Default: any bearer is accepted. */
  apiKey?: string;
  /**
   * The vector of one embedding input, or a fault to answer the whole request with (e.g. `rateLimit()`).
   * Default {@link hashedWordVector}.
   */
  embed?: (text: string) => number[] | ScriptFault;
}

export interface ScriptedModelServer {
  /** Base URL for the SDK, ending in `/v1`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** The chat-completion requests only. */
  readonly chatRequests: RecordedRequest[];
  /** The embedding requests only. */
  readonly embeddingRequests: RecordedRequest[];
  /** Steps not yet consumed. */
  readonly remainingSteps: number;
  close(): Promise<void>;
}

type Resolved = ScriptReply | ScriptFault;

class ScriptError extends Error {}

export async function startScriptedModelServer(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const steps = [...options.script];
  const requests: RecordedRequest[] = [];
  const models = options.models ?? ['scripted-model'];
  const timers = new Set<NodeJS.Timeout>();
  let chatCount = 0;
  let consumed = 0;

  const wait = (delayMs: number, response: ServerResponse) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, delayMs);
      timers.add(timer);
      response.once('close', () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve();
      });
    });

  /** Unwraps functions, delays and predicates down to a reply or a fault; delays are served on the way. */
  async function resolve(step: ScriptStep, context: ScriptContext, response: ServerResponse): Promise<Resolved> {
    if (typeof step === 'function') return resolve(await step(context), context, response);
    if (step.kind === 'delay') {
      await wait(step.delayMs, response);
      return resolve(step.then, context, response);
    }
    if (step.kind === 'match') {
      if (!step.predicate(context)) {
        throw new ScriptError(
          `scripted model: a nested step (${step.label}) does not match request ${context.requestIndex + 1}; last message: ${JSON.stringify(context.lastMessage)}`,
        );
      }
      return resolve(step.then, context, response);
    }
    return step;
  }

  async function chat(body: Record<string, unknown>, response: ServerResponse): Promise<void> {
    const context = contextOf(body, chatCount++);
    const step = steps[0];
    if (step === undefined) {
      const message = `scripted model: the script ran out after ${consumed} step(s); request ${context.requestIndex + 1} has no step to answer it (last message: ${JSON.stringify(context.lastMessage)})`;
      sendError(response, 500, message, 'script_exhausted', { 'x-should-retry': 'false' });
      return;
    }
    // A predicate that does not hold leaves its step in place, so the failure stays visible.
    if (typeof step !== 'function' && step.kind === 'match' && !step.predicate(context)) {
      const message = `scripted model: step ${consumed + 1} (${step.label}) does not match request ${context.requestIndex + 1}; last message: ${JSON.stringify(context.lastMessage)}`;
      sendError(response, 500, message, 'script_mismatch', { 'x-should-retry': 'false' });
      return;
    }
    steps.shift();
    consumed++;
    let resolved: Resolved;
    try {
      resolved = await resolve(step, context, response);
    } catch (error) {
      const message = error instanceof ScriptError ? error.message : `scripted model: step threw: ${String(error)}`;
      sendError(response, 500, message, 'script_error', { 'x-should-retry': 'false' });
      return;
    }
    if (response.destroyed) return;
    if (resolved.kind === 'fault') {
      sendError(response, resolved.status, resolved.message, resolved.type ?? 'scripted_fault', resolved.headers ?? {});
      return;
    }
    const reply = completionOf(resolved, context);
    if (context.stream) sendStream(response, reply, body);
    else sendJson(response, 200, reply);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    const path = request.url ?? '/';
    let body: Record<string, unknown> | undefined;
    let bodyIsJson = true;
    if (text.length > 0) {
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        bodyIsJson = false;
        body = { raw: text };
      }
    }
    requests.push({ method: request.method ?? 'GET', path, headers: request.headers, body, receivedAt: Date.now() });

    const authorization = request.headers.authorization;
    const bearer = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (options.apiKey !== undefined && bearer !== options.apiKey) {
      sendError(
        response,
        401,
        'Incorrect API key provided (scripted).',
        'invalid_request_error',
        {},
        'invalid_api_key',
      );
      return;
    }
    const route = `${request.method} ${path.split('?')[0]}`;
    if (route === 'GET /v1/models') {
      sendJson(response, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'scripted' })),
      });
    } else if (route === 'POST /v1/chat/completions' || route === 'POST /v1/embeddings') {
      if (!bodyIsJson || body === undefined)
        sendError(response, 400, 'The request body is not JSON.', 'invalid_request_error');
      else if (route === 'POST /v1/embeddings') embeddings(body, options.embed ?? hashedWordVector, response);
      else await chat(body, response);
    } else {
      sendError(response, 404, `scripted model: no route for ${route}`, 'invalid_request_error');
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, `scripted model: ${String(error)}`, 'server_error');
      else response.destroy();
    });
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get chatRequests() {
      return requests.filter((request) => request.path.startsWith('/v1/chat/completions'));
    },
    get embeddingRequests() {
      return requests.filter((request) => request.path.startsWith('/v1/embeddings'));
    },
    get remainingSteps() {
      return steps.length;
    },
    close: () =>
      new Promise<void>((resolveClose) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}

// ---- embeddings ------------------------------------------------------------------------------

/**
 * A deterministic stand-in for an embedding model: lower-cased words hashed (FNV-1a) into
 * `dimensions` buckets, L2-normalised, so texts that share words have a positive cosine. A text
 * without words gives the zero vector. Common words and bucket collisions count too: a short
 * sentence and a long unrelated text can reach a cosine of 0.3 to 0.45, so a test that needs sharp
 * similarity passes its own `embed`.
 */
export function hashedWordVector(text: string, dimensions = 64): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let hash = 0x811c9dc5;
    for (const unit of word) hash = Math.imul(hash ^ (unit.codePointAt(0) ?? 0), 0x01000193) >>> 0;
    vector[hash % dimensions] = (vector[hash % dimensions] ?? 0) + 1;
  }
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/** Answers `POST /v1/embeddings` in the OpenAI shape; `encoding_format: base64` as the SDK asks by default. */
function embeddings(
  body: Record<string, unknown>,
  embed: (text: string) => number[] | ScriptFault,
  response: ServerResponse,
): void {
  const input = body.input;
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || !texts.every((text) => typeof text === 'string')) {
    sendError(response, 400, "'input' must be a string or an array of strings.", 'invalid_request_error');
    return;
  }
  const vectors: number[][] = [];
  for (const text of texts) {
    const vector = embed(text);
    if (!Array.isArray(vector)) {
      sendError(response, vector.status, vector.message, vector.type ?? 'scripted_fault', vector.headers ?? {});
      return;
    }
    vectors.push(vector);
  }
  const base64 = body.encoding_format === 'base64';
  const tokens = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  sendJson(response, 200, {
    object: 'list',
    data: vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
    })),
    model: typeof body.model === 'string' ? body.model : '',
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

// ---- wire shapes -----------------------------------------------------------------------------

function contextOf(body: Record<string, unknown>, requestIndex: number): ScriptContext {
  const messages = Array.isArray(body.messages) ? (body.messages as WireMessage[]) : [];
  const toolMessage = messages.findLast((message) => message.role === 'tool');
  let lastToolResult: ScriptContext['lastToolResult'];
  if (toolMessage) {
    const toolCallId = String(toolMessage.tool_call_id ?? '');
    const call = messages
      .flatMap((message) => message.tool_calls ?? [])
      .find((candidate) => candidate.id === toolCallId);
    lastToolResult = { toolCallId, name: call?.function.name, content: textOf(toolMessage.content) };
  }
  return {
    messages,
    tools: Array.isArray(body.tools) ? (body.tools as ScriptContext['tools']) : [],
    model: typeof body.model === 'string' ? body.model : '',
    temperature: typeof body.temperature === 'number' ? body.temperature : undefined,
    stream: body.stream === true,
    body,
    requestIndex,
    lastMessage: messages.at(-1),
    lastToolResult,
  };
}

/** Message content as text: a string, or the text parts of a content array. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part?.text === 'string' ? (part.text as string) : '')).join('');
  }
  return '';
}

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface WireCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: WireToolCall[] };
    logprobs: null;
    finish_reason: string;
  }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function completionOf(reply: ScriptReply, context: ScriptContext): WireCompletion {
  const toolCalls = (reply.toolCalls ?? []).map(
    (call, index): WireToolCall => ({
      id: call.id ?? `call_${context.requestIndex + 1}_${index + 1}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }),
  );
  const promptTokens = reply.usage?.promptTokens ?? Math.ceil(JSON.stringify(context.messages).length / 4);
  const completionTokens =
    reply.usage?.completionTokens ?? Math.ceil(((reply.text ?? '').length + JSON.stringify(toolCalls).length) / 4);
  return {
    id: `chatcmpl-scripted-${context.requestIndex + 1}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: context.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

/** Sends the completion as `chat.completion.chunk` events the way OpenAI streams them. */
function sendStream(response: ServerResponse, completion: WireCompletion, body: Record<string, unknown>): void {
  const choice = completion.choices[0];
  if (!choice) return;
  const base = {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
  };
  const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of pieces(choice.message.content ?? '')) events.push(chunk({ content: piece }));
  (choice.message.tool_calls ?? []).forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      }),
    );
    for (const piece of pieces(call.function.arguments)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  events.push(chunk({}, choice.finish_reason));
  if (includeUsage) events.push({ ...base, choices: [], usage: completion.usage });

  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
  response.end('data: [DONE]\n\n');
}

/** Splits text into small pieces, as a model emits tokens. */
function pieces(text: string): string[] {
  return text.match(/[\s\S]{1,8}/g) ?? [];
}

function sendJson(
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.destroyed) return;
  const text = JSON.stringify(value);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  type: string,
  headers: Record<string, string> = {},
  code: string | null = null,
): void {
  sendJson(response, status, { error: { message, type, param: null, code } }, headers);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
