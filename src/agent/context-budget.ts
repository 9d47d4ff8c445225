/**
 * Keeps a long thread within the model's budget: when the working history grows past it (counted
 * with a real tokenizer), the older turns are replaced by a summary the model writes of them. Tool
 * outputs are already cut when they are produced (format-for-model.ts).
 */
import { getEncoding, type Tiktoken } from 'js-tiktoken';
import type { ChatMessage, CompletionParams, LlmClient } from '../ports/llm.js';

/** Turns kept word for word; everything before them may be summarised. */
const KEEP_TURNS = 2;
const CHARS_PER_TOKEN_AT_MOST = 6;

let encoding: Tiktoken | undefined;

export function countTokens(messages: ChatMessage[]): number {
  encoding ??= getEncoding('o200k_base');
  let tokens = 0;
  for (const message of messages) {
    tokens += 4; // role and separators
    if (message.content) tokens += encoding.encode(message.content).length;
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) tokens += encoding.encode(call.name + call.arguments).length;
    }
  }
  return tokens;
}

const SUMMARY_PROMPT = `Summarise the earlier part of this data-analysis conversation for your own later use, in at
most 200 words: the user's requests, which DataFrames exist in the Python kernel (names, what they hold),
the numbers found, decisions and open questions. Facts only.`;

/**
 * Summarises older turns in place when `messages` exceeds `budgetTokens`. Cuts only where a user
 * turn starts, so a tool call is never separated from its result, and deep enough that what is kept
 * fits in half the budget when it can: the history then grows for a while before it is cut again, and
 * until then every request repeats the same prefix for the provider's prompt cache. Returns whether
 * it summarised.
 */
export async function fitToBudget(options: {
  messages: ChatMessage[];
  budgetTokens: number;
  llm: LlmClient;
  params: CompletionParams;
  signal: AbortSignal;
  /** Turns kept word for word; default 2 (one when the turn about to start is not in `messages` yet). */
  keepTurns?: number;
}): Promise<boolean> {
  const { messages, budgetTokens } = options;
  const characters = messages.reduce((total, message) => total + (message.content?.length ?? 0), 0);
  if (characters / CHARS_PER_TOKEN_AT_MOST < budgetTokens / 2 && characters < budgetTokens) return false;
  if (countTokens(messages) <= budgetTokens) return false;
  const turnStarts = messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
  const latest = turnStarts[turnStarts.length - (options.keepTurns ?? KEEP_TURNS)];
  if (latest === undefined || latest === 0) return false;
  const fitting = turnStarts.find((start) => start > 0 && countTokens(messages.slice(start)) <= budgetTokens / 2);
  const cut = Math.min(fitting ?? latest, latest);
  const older = messages.slice(0, cut);
  const completion = await options.llm.complete({
    messages: [
      { role: 'system', content: SUMMARY_PROMPT },
      { role: 'user', content: older.map(describeMessage).join('\n') },
    ],
    params: options.params,
    signal: options.signal,
  });
  const summary = completion.message.content?.trim() || '(no summary)';
  messages.splice(0, cut, { role: 'user', content: `(Summary of the earlier conversation: ${summary})` });
  return true;
}

function describeMessage(message: ChatMessage): string {
  if (message.role === 'assistant') {
    const calls = (message.toolCalls ?? []).map((call) => `${call.name}(${call.arguments})`).join('; ');
    return `assistant: ${message.content ?? ''}${calls ? ` [called ${calls}]` : ''}`;
  }
  return `${message.role}: ${message.content}`;
}
