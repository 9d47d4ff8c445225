/**
 * A turn's progress where it is not streamed (the workspace refuses streams, or a stream failed):
 * as before streams, the task being worked on as the thread status ("Load customers (12,000 rows so
 * far)…") and the plan as one message, posted the first time a turn shows it (not again while the
 * thread's plan stays the same). Pure: the adapter posts and sets the status.
 */
import type { TurnProgress } from '../../src/ports/chat.js';
import { liveTitle } from './slack-stream-chunks.js';

/** The thread status for a running turn: the call under way, else the plan step under way. */
export function fallbackStatus(progress: TurnProgress): string | undefined {
  if (progress.state !== 'running') return undefined;
  const task =
    progress.tasks.findLast((candidate) => candidate.status === 'in_progress') ??
    progress.tasks.findLast((candidate) => candidate.status === 'pending');
  if (task) return `${liveTitle(task)}…`;
  const step = progress.plan.find((candidate) => candidate.status === 'in_progress');
  return step ? `${step.title}…` : undefined;
}

/** The plan as a message (markdown), or undefined when the turn has none. */
export function planMarkdown(progress: TurnProgress): string | undefined {
  if (progress.plan.length === 0) return undefined;
  return `**Plan**\n${progress.plan.map((step, index) => `${index + 1}. ${step.title}`).join('\n')}`;
}
