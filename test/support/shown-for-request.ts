/**
 * What a model request shows for the request it works on: the system prompt, and the user's messages
 * since the model last spoke (the request's own message with what was found for it, the guidance,
 * and for triage and plan their instruction). Earlier requests of the thread are left out.
 */
import type { ScriptContext } from '../../src/demo/scripted-model-server.js';

export function shownForRequest(context: ScriptContext): string {
  const lastReply = context.messages.findLastIndex((message) => message.role === 'assistant');
  return context.messages
    .filter((message, index) => message.role === 'system' || (message.role === 'user' && index > lastReply))
    .map((message) => String(message.content ?? ''))
    .join('\n\n');
}
