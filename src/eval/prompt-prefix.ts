/**
 * How much of a model request repeats what was sent before, computed from what is sent: the
 * request is laid out the way a provider renders it (the model, the tools, then each message), and
 * its longest common prefix with any earlier request of the same case is the part a provider's
 * prompt cache could serve (an exact prefix is the only thing caches reuse).
 */
import type { CompletionRequest } from '../ports/llm.js';

/** A request as text in the provider's order, for prefix matching. */
export function requestText(request: CompletionRequest, model: string): string {
  return [
    request.params?.model ?? model,
    JSON.stringify(request.tools ?? []),
    ...request.messages.map(messageText),
  ].join('\n');
}

function messageText(message: CompletionRequest['messages'][number]): string {
  return JSON.stringify(message);
}

/** The share (0-1) of `text` that is a prefix of one of `earlier`: the longest common prefix over its length. */
export function repeatedShare(text: string, earlier: readonly string[]): number {
  if (text.length === 0) return 0;
  let longest = 0;
  for (const before of earlier) longest = Math.max(longest, commonPrefix(text, before));
  return longest / text.length;
}

function commonPrefix(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let index = 0;
  // Compare in chunks first: most of a repeated prompt is one long equal run.
  const chunk = 256;
  while (index + chunk <= end && a.slice(index, index + chunk) === b.slice(index, index + chunk)) index += chunk;
  while (index < end && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}
