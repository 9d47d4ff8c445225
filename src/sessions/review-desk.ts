/**
 * Review and approval decisions in a thread: applies Accept / Revise / Discard to the report (only
 * the owner or a reviewer may), asks for feedback when Revise came without any, turns a plain reply
 * into feedback while a section waits, and hands a paused turn its decision to resume with.
 */

import type { PendingQuestion } from '../agent/conversation.js';
import { type ActiveSpan, NO_TRACING } from '../ports/tracing.js';
import { decide, findSection, latest, type Report, ReviewError, type Section } from '../report/report.js';
import { proposeVerifiedQuery, type QueryProposalOptions } from './query-proposals.js';
import type { ThreadCommand } from './thread-command.js';
import { DONE, type Handled, mayDecide, type ThreadContext } from './thread-context.js';

type ReviewCommand = Extract<ThreadCommand, { kind: 'review' }>;
type ApprovalCommand = Extract<ThreadCommand, { kind: 'approval' }>;

/** A plain reply while a section waits for review or feedback: it is the feedback for a revision. */
export function feedbackTarget(thread: ThreadContext): { section: string; version?: number } | undefined {
  const pending = thread.session.conversation.pending;
  return (
    thread.session.feedbackFor ??
    (pending?.kind === 'review' ? { section: pending.section, version: pending.version } : undefined)
  );
}

/** Applies a review decision, in a span of its own: the action, the section and version, or why it was not applied. */
export function handleReview(
  thread: ThreadContext,
  command: ReviewCommand,
  options: QueryProposalOptions = {},
): Promise<Handled> {
  // The section is named once found: what the command says may be anything a person typed or a button carried.
  const attributes = { 'tally.report.action': command.action };
  return (thread.tracing ?? NO_TRACING).span('tally.report.decide', attributes, (span) =>
    review(thread, command, options, span),
  );
}

async function review(
  thread: ThreadContext,
  command: ReviewCommand,
  options: QueryProposalOptions,
  span: ActiveSpan,
): Promise<Handled> {
  if (!(await mayDecide(thread, 'decide on report sections'))) {
    span.set({ 'tally.report.refused': 'not a reviewer' });
    return DONE;
  }
  const report = await thread.book.load();
  const target = command.section ?? feedbackTarget(thread)?.section ?? lastDraft(report)?.id;
  if (!target) {
    span.set({ 'tally.report.refused': 'nothing waiting' });
    await thread.emit({ kind: 'text', markdown: 'No section is waiting for review.' });
    return DONE;
  }
  let section: Section;
  try {
    section = findSection(report, target);
    span.set({ 'tally.report.section': section.id });
    if (command.action === 'revise' && !command.feedback) {
      if (section.status !== 'draft') throw new ReviewError(`Section ${section.id} is already ${section.status}.`);
      thread.session.feedbackFor = { section: section.id, version: latest(section).version };
      await thread.emit({
        kind: 'question',
        text: `What should change in ${section.id} ('${latest(section).title}')? Reply in the thread.`,
      });
      return DONE;
    }
    decide(report, target, {
      action: command.action,
      by: thread.inbound.user.id,
      at: thread.inbound.receivedAt,
      ...(command.version !== undefined ? { version: command.version } : {}),
      ...(command.feedback ? { feedback: command.feedback } : {}),
    });
  } catch (error) {
    if (!(error instanceof ReviewError)) throw error;
    span.set({ 'tally.report.refused': 'review rule' });
    await thread.emit({ kind: 'error', text: error.message });
    return DONE;
  }
  await thread.book.save(report);
  delete thread.session.feedbackFor;
  const version = latest(section);
  span.set({ 'tally.report.version': version.version, 'tally.report.decided': true });
  await thread.log.append({
    kind: 'decision',
    user: thread.inbound.user.id,
    section: section.id,
    version: version.version,
    action: command.action,
    ...(command.feedback ? { feedback: command.feedback } : {}),
  });
  await thread.emit({ kind: 'text', markdown: confirmation(report, section, command) });
  if (command.action === 'accept') await proposeVerifiedQuery(thread, section, options);
  const result = resultForModel(section, command);
  const pending = thread.session.conversation.pending;
  if (pending?.kind === 'review' && pending.section === section.id)
    return { kind: 'resume', resume: { kind: 'review', result } };
  if (command.action === 'revise') return { kind: 'request', text: result };
  return DONE;
}

export async function handleApproval(
  thread: ThreadContext,
  pending: Extract<PendingQuestion, { kind: 'approval' }>,
  command: ApprovalCommand | undefined,
): Promise<Handled> {
  if (!(await mayDecide(thread, 'approve cells'))) return DONE;
  const decision = command?.decision ?? 'skip';
  const note = command ? command.note : thread.inbound.text.trim();
  if (decision === 'edit' && !command?.code) {
    await thread.emit({
      kind: 'question',
      text: `Send the code to run instead, as a fenced block: edit followed by \`\`\`${pending.language} … \`\`\``,
    });
    return DONE;
  }
  return {
    kind: 'resume',
    resume: {
      kind: 'approval',
      decision,
      user: thread.inbound.user.id,
      ...(command?.code ? { code: command.code } : {}),
      ...(note ? { note } : {}),
    },
  };
}

function lastDraft(report: Report): Section | undefined {
  return report.sections.findLast((section) => section.status === 'draft');
}

function confirmation(report: Report, section: Section, command: ReviewCommand): string {
  const { title, version } = latest(section);
  if (command.action === 'accept') {
    return `Accepted ${section.id} '${title}' (version ${version}): section ${report.accepted.length} of the report.`;
  }
  if (command.action === 'revise') return `Revising ${section.id} '${title}' with your feedback.`;
  return `Discarded ${section.id} '${title}'; it stays out of the report.`;
}

/** The draft_section call's result (or the request for a revision) the model reads. */
function resultForModel(section: Section, command: ReviewCommand): string {
  const current = latest(section);
  if (command.action === 'accept') {
    return `The user accepted section ${section.id} (version ${current.version}) into the report. Continue with the next stage of the analysis; when the analysis is complete, answer briefly.`;
  }
  if (command.action === 'discard') {
    return `The user discarded section ${section.id}; it is not in the report. Continue with the next stage of the analysis; when the analysis is complete, answer briefly.`;
  }
  return [
    `The user asked for a revision of section ${section.id} ('${current.title}'). Their feedback: ${command.feedback}`,
    `Previous version (${current.version}):\n${current.narrative}`,
    `Redo this stage with the feedback (run what is needed), then call draft_section with revises="${section.id}".`,
  ].join('\n\n');
}
