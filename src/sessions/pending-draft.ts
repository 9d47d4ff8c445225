/**
 * Something drafted from accepted work that waits in the thread before it is published: a playbook drafted from the
 * report, or a verified query proposed from an accepted section. Both are shown as a review card with only Accept
 * and Discard, decided by the thread's owner or a reviewer, logged, and then dropped or saved.
 */
import { DONE, type Handled, mayDecide, type ThreadContext } from './thread-context.js';

export interface PendingDraft {
  /** The card's id, and the decision's section in the log. */
  id: 'playbook' | 'query';
  /** What it is called in the thread: 'playbook draft', 'proposed query'. */
  noun: string;
  /** What a decider may do, for the refusal to anyone else: 'save playbooks'. */
  permission: string;
  /** Its name, in what the thread is told. */
  name: string;
}

/** Shows the draft for a decision: a review card with Accept and Discard. */
export async function showDraft(
  thread: ThreadContext,
  draft: Pick<PendingDraft, 'id'> & { title: string; markdown: string },
): Promise<void> {
  await thread.emit({
    kind: 'review',
    id: draft.id,
    version: 1,
    title: draft.title,
    markdown: draft.markdown,
    figures: [],
    cells: [],
    controls: ['accept', 'discard'],
  });
}

/**
 * Decides the draft waiting in the thread: `drop` takes it off the session; on accept, `save` publishes it and says
 * where. Revise is not offered for a draft: its file is edited once saved.
 */
export async function decideDraft(
  thread: ThreadContext,
  draft: PendingDraft,
  action: 'accept' | 'revise' | 'discard',
  steps: { drop: () => void; save: () => Promise<string> },
): Promise<Handled> {
  if (!(await mayDecide(thread, draft.permission))) return DONE;
  if (action === 'revise') {
    await thread.emit({
      kind: 'text',
      markdown: `A ${draft.noun} can be accepted or discarded; edit its file after saving to change it.`,
    });
    return DONE;
  }
  steps.drop();
  await thread.log.append({ kind: 'decision', user: thread.inbound.user.id, section: draft.id, version: 1, action });
  const said = action === 'discard' ? `Discarded the ${draft.noun} '${draft.name}'.` : await steps.save();
  await thread.emit({ kind: 'text', markdown: said });
  return DONE;
}
