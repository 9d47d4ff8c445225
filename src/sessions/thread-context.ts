/** What the handlers of one inbound message share: the session, its report book and log, and the thread. */
import type { Resume } from '../agent/turn-request.js';
import type { Reader } from '../ports/access.js';
import type { AuditTrail } from '../ports/audit.js';
import type { Inbound, Post } from '../ports/chat.js';
import type { Database } from '../ports/database.js';
import type { Store } from '../ports/store.js';
import type { Tracing } from '../ports/tracing.js';
import { mayReview } from '../report/report.js';
import type { ReportBook } from '../report/report-book.js';
import type { SessionLog } from './session-log.js';
import type { SessionRecord } from './session-record.js';

export interface ThreadContext {
  inbound: Inbound;
  session: SessionRecord;
  book: ReportBook;
  log: SessionLog;
  emit: (post: Post) => Promise<void>;
  /** User ids who may decide besides the owner. */
  reviewers: readonly string[];
  /** The databases the sender may read here (under the access policy, enforcing it, and audited). */
  databases: Database[];
  store: Store;
  /** Where exports and shared files are recorded. */
  audit: AuditTrail;
  /** What the sender may read here, under the access policy (absent: no policy, and no grants are tracked). */
  reader?: Reader;
  /** Where review decisions are traced (a span each). Default: nowhere. */
  tracing?: Tracing;
}

/**
 * What handling a message led to: nothing more to do, a paused turn to resume with a decision, or
 * a request for the agent (e.g. a revision of a section whose turn has ended).
 */
export type Handled = { kind: 'done' } | { kind: 'resume'; resume: Resume } | { kind: 'request'; text: string };

export const DONE: Handled = { kind: 'done' };

/** The thread's owner, a configured reviewer, or someone the platform names a reviewer. */
export function isReviewer(thread: ThreadContext): boolean {
  const { inbound, session } = thread;
  return inbound.user.reviewer === true || mayReview(inbound.user.id, session.owner, thread.reviewers);
}

/** True when the sender may decide; otherwise tells them (only them, where the platform can) why not. */
export async function mayDecide(thread: ThreadContext, what: string): Promise<boolean> {
  const { inbound } = thread;
  if (isReviewer(thread)) return true;
  await thread.emit({
    kind: 'notice',
    userId: inbound.user.id,
    text: `Sorry, only the person who started this thread or a configured reviewer can ${what}.`,
  });
  return false;
}
