/**
 * How a paused turn goes on: the call it waited on gets its result, which is the person's answer to the model's
 * question, the review decision on a drafted section, or the run of a held cell as the approval decision says.
 */
import { runHeldCall } from './approval.js';
import { answerText, type PendingQuestion } from './conversation.js';
import { keepToolResult } from './grounding/thread-evidence.js';
import type { AgentTool, ToolContext } from './tool.js';
import type { TurnRequest } from './turn-request.js';

/** The result of the call a paused turn waited on: the answer, the review decision, or the approved cell's run. */
export async function resumePausedCall(
  pending: Exclude<PendingQuestion, { kind: 'triage' }>,
  request: TurnRequest,
  context: ToolContext,
  toolNamed: (name: string) => AgentTool | undefined,
): Promise<string> {
  if (pending.kind === 'tool') return `The user answered: ${answerText(pending, request.text)}`;
  const resume = request.resume;
  if (pending.kind === 'review') {
    return resume?.kind === 'review'
      ? resume.result
      : `The section is still waiting for review. The user said: ${request.text}`;
  }
  const tool = toolNamed(pending.tool);
  // A reply that is no decision skips the cell and reaches the model as the user's words.
  const decision = resume?.kind === 'approval' ? resume : { decision: 'skip' as const, user: '', note: request.text };
  const content = await runHeldCall(pending, decision, tool, { ...context, callId: pending.callId }, request.log);
  keepToolResult(
    request.conversation,
    { id: pending.callId, name: pending.tool, arguments: pending.arguments },
    content,
  );
  return content;
}
