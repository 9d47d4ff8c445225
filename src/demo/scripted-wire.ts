/**
 * The OpenAI chat-completions wire shapes of the LLM stand-in: the script's view of a request, a
 * reply as a completion (JSON or server-sent events), and the HTTP helpers the server answers with.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ScriptContext, ScriptReply, WireMessage } from './script-steps.js';
import { estimateTokens, promptText, type ScriptedPromptCache } from './scripted-prompt-cache.js';

export function contextOf(body: Record<string, unknown>, requestIndex: number): ScriptContext {
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
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
  };
}

/** The reply as a completion; `cache` is the stand-in's prompt cache, which reports what it served. */
export function completionOf(reply: ScriptReply, context: ScriptContext, cache: ScriptedPromptCache): WireCompletion {
  const toolCalls = (reply.toolCalls ?? []).map(
    (call, index): WireToolCall => ({
      id: call.id ?? `call_${context.requestIndex + 1}_${index + 1}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }),
  );
  const prompt = promptText(context.body);
  const promptTokens = reply.usage?.promptTokens ?? estimateTokens(prompt);
  const cachedTokens = cache.lookup(prompt, promptTokens);
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
      prompt_tokens_details: { cached_tokens: cachedTokens },
    },
  };
}

/** Sends the completion as `chat.completion.chunk` events the way OpenAI streams them. */
export function sendStream(response: ServerResponse, completion: WireCompletion, body: Record<string, unknown>): void {
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

export function sendJson(
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

export function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  type: string,
  headers: Record<string, string> = {},
  code: string | null = null,
): void {
  sendJson(response, status, { error: { message, type, param: null, code } }, headers);
}

export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
