/**
 * The script of the LLM stand-in (scripted-model-server.ts): what a step is (a reply, a fault, a
 * delay, a check, or a function of the conversation) and the builders tests and the demo write
 * scripts with, plus the deterministic stand-in embedding. No I/O here.
 */
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
/**
 * What the request's `tool_choice` asks: the name of the tool it forces, `none` when it lists tools but allows no
 * call (tally's plan), undefined when the model may choose.
 */
export function toolChoiceOf(context: ScriptContext): string | undefined {
  const choice = context.body.tool_choice;
  if (choice === 'none') return 'none';
  const forced = (choice as { function?: { name?: unknown } } | undefined)?.function?.name;
  return typeof forced === 'string' ? forced : undefined;
}

/**
 * Whether the model has not replied yet in the thread: the first act request of its first request, where tally's
 * act prompt asks for `triage` when the request is not a clear one-step question.
 */
export const isFirstRequest = (context: ScriptContext): boolean =>
  toolChoiceOf(context) === undefined && !context.messages.some((message) => message.role === 'assistant');

/** Whether the request is tally's plan stage (tools listed, none allowed). */
export const isPlanRequest = (context: ScriptContext): boolean => toolChoiceOf(context) === 'none';

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
