/** What a turn interrupted by a restart tells the model about the calls that never finished. */
import type { ChatMessage } from '../ports/llm.js';

/**
 * Tool calls of the last model reply that have no result: tally stopped while they ran. The model
 * is told so (the kernel kept what succeeded: its journal was replayed) rather than left with calls
 * the API would refuse as unanswered.
 */
export function answerInterruptedCalls(messages: ChatMessage[]): void {
  const last = messages.findLastIndex((message) => message.role === 'assistant');
  const reply = messages[last];
  if (reply?.role !== 'assistant' || !reply.toolCalls?.length) return;
  const answered = new Set(
    messages.slice(last + 1).flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])),
  );
  for (const call of reply.toolCalls) {
    if (answered.has(call.id)) continue;
    messages.push({
      role: 'tool',
      toolCallId: call.id,
      content:
        'Interrupted: tally restarted before this call finished. Variables made by cells that had finished are back in the kernel; check before running it again.',
    });
  }
}
