/**
 * A message that is not work: a settings command, a report command (`report`, save as playbook, `reset`), a review
 * or approval decision, or a reviewer's feedback on a section waiting for review. What is left is a request for the
 * agent or code for the kernel.
 */
import { describeSettings, parseSetCommand } from '../agent/settings.js';
import { decideQueryProposal, type QueryProposalOptions } from './query-proposals.js';
import {
  decidePlaybook,
  draftPlaybookFromReport,
  exportThreadReport,
  type ReportCommandOptions,
} from './report-commands.js';
import { feedbackTarget, handleApproval, handleReview } from './review-desk.js';
import type { SessionKernels } from './session-kernel.js';
import { parseThreadCommand } from './thread-command.js';
import { DONE, type Handled, isReviewer, type ThreadContext } from './thread-context.js';
import { findUserCode } from './user-code.js';

export interface DispatchMessageOptions extends ReportCommandOptions, QueryProposalOptions {
  /** Where `reset` gets the thread a fresh kernel. */
  kernels: Pick<SessionKernels, 'reset'>;
}

/** Settings, report commands and decisions; what is left is work for the agent or the kernel. */
export async function dispatchMessage(thread: ThreadContext, options: DispatchMessageOptions): Promise<Handled> {
  const { inbound, session, emit } = thread;
  const set = parseSetCommand(inbound.text, session.settings);
  if (set && !inbound.action) {
    if ('error' in set) await emit({ kind: 'error', text: set.error });
    else {
      session.settings = set.settings;
      await emit({ kind: 'text', markdown: `Settings: ${describeSettings(session.settings)}` });
    }
    return DONE;
  }
  const command = parseThreadCommand(inbound);
  const pending = session.conversation.pending;
  if (command?.kind === 'export') return exportThreadReport(thread, options);
  if (command?.kind === 'save-playbook') return draftPlaybookFromReport(thread, options, command.title);
  if (command?.kind === 'reset') {
    await options.kernels.reset(inbound.threadKey);
    session.conversation.work = { cells: [], figures: [] };
    delete session.conversation.files;
    session.conversation.messages.push({
      role: 'user',
      content: '[The kernel was reset: variables, DataFrames and shared files from before are gone.]',
    });
    await emit({
      kind: 'text',
      markdown: 'Fresh kernel: the variables and files from before are gone. The conversation and the report stay.',
    });
    return DONE;
  }
  if (command?.kind === 'review') {
    const waiting = !command.section && !feedbackTarget(thread);
    if (command.section === 'query' || (waiting && session.queryProposal && !session.playbookDraft))
      return decideQueryProposal(thread, options, command.action);
    const forPlaybook = command.section === 'playbook' || (waiting && session.playbookDraft);
    return forPlaybook ? decidePlaybook(thread, options, command.action) : handleReview(thread, command, options);
  }
  if (pending?.kind === 'approval' && (command?.kind === 'approval' || !findUserCode(inbound.text))) {
    // A reply that is not a decision skips the cell and reaches the model as the user's words.
    return handleApproval(thread, pending, command?.kind === 'approval' ? command : undefined);
  }
  if (command?.kind === 'approval') {
    await emit({ kind: 'text', markdown: 'No cell is waiting for approval.' });
    return DONE;
  }
  const target = feedbackTarget(thread);
  if (target && !findUserCode(inbound.text)) {
    if (!isReviewer(thread)) {
      await emit({
        kind: 'notice',
        userId: inbound.user.id,
        text: `This thread is waiting for a review of ${target.section} by the person who started it or a reviewer.`,
      });
      return DONE;
    }
    return handleReview(thread, { kind: 'review', action: 'revise', ...target, feedback: inbound.text });
  }
  return { kind: 'request', text: inbound.text };
}
