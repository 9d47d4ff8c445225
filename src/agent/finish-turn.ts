/**
 * How a turn ends in the thread: the answer, the question or held cell it waits on (kept as the
 * conversation's pending item), or an honest note on why it stopped.
 */
import type { Post } from '../ports/chat.js';
import type { Conversation } from './conversation.js';
import type { ToolLoopResult } from './run-tool-loop.js';
import { failureLine } from './task-title.js';

export type TurnOutcome = 'answered' | 'asked' | 'out_of_scope' | 'gave_up' | 'stopped';

export async function finishTurn(
  result: ToolLoopResult,
  conversation: Conversation,
  emit: (post: Post) => Promise<void>,
  /** What the thread is told when triage found the data cannot answer the request. */
  decline: (reason: string) => string,
): Promise<TurnOutcome> {
  if (result.reason === 'ended') {
    await emit({ kind: 'text', markdown: decline(result.end.reason) });
    return 'out_of_scope';
  }
  if (result.reason === 'answered') {
    await emit({ kind: 'text', markdown: result.text || '(no answer)' });
    return 'answered';
  }
  if (result.reason === 'asked') {
    const { pause, callId } = result;
    if (pause.kind === 'question') {
      const { kind: _, multiStep, ...question } = pause;
      conversation.pending = { kind: 'tool', callId, ...question, ...(multiStep ? { multiStep } : {}) };
      await emit({ kind: 'question', ...question });
    } else {
      conversation.pending = { ...pause, callId };
      if (pause.kind === 'approval') {
        await emit({
          kind: 'approval',
          id: callId,
          language: pause.language,
          code: pause.code,
          reason: pause.reason,
        });
      }
    }
    return 'asked';
  }
  if (result.reason === 'repair_limit') {
    const tried = result.failures.map((failure, index) => `${index + 1}. ${failureLine(failure)}`).join('\n');
    await emit({
      kind: 'error',
      text: `I gave up on this step after ${result.failures.length} failed attempts. What I tried and how it failed:\n${tried}\n\nThe variables from earlier steps are still there; tell me how to proceed or rephrase the request.`,
    });
    return 'gave_up';
  }
  if (result.reason === 'finished') return 'answered'; // a finishing tool handed in the result
  const why = {
    step_limit: 'it took too many steps',
    token_limit: 'it used its token budget',
    time_limit: 'it ran out of time',
  }[result.reason];
  await emit({
    kind: 'error',
    text: `I stopped this turn because ${why}. Ask me to continue, or narrow the request.`,
  });
  return 'stopped';
}
