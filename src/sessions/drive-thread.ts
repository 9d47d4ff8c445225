/**
 * A thread worked through with no one at the keyboard: send a message, then keep answering what the
 * thread waits on (a section or a playbook draft to review, a cell to approve, a question), the way
 * a person replying in the thread would, until it waits on nothing, `reply` leaves it waiting, or a
 * round limit is reached. `tally eval` (each case) and `tally ask` both drive their threads here.
 */
import type { PendingQuestion } from '../agent/conversation.js';
import { ACTION_IDS, type Inbound, type SharedFile, type ThreadKey } from '../ports/chat.js';
import type { Store } from '../ports/store.js';
import { type SessionRecord, sessionKey } from './session-record.js';

/** What a thread waits on: the conversation's pending item, or a playbook draft awaiting review. */
export type Waiting = PendingQuestion | { kind: 'playbook'; title: string };

/** A message into the thread: typed text, or a click on a control (`action`). */
export interface ThreadReply {
  text: string;
  action?: { id: string; value: string };
}

export interface DriveThreadOptions {
  /** Handles one inbound message to its end (the session router's `handle`). */
  handle(inbound: Inbound): Promise<void>;
  store: Store;
  threadKey: ThreadKey;
  /** Who writes: the thread's owner, so their decisions count. */
  userId: string;
  /** The reply to what the thread waits on; a string is typed text; undefined leaves it waiting. */
  reply(waiting: Waiting): ThreadReply | string | undefined;
  /** Replies sent at most after the first message. Default 12. */
  maxRounds?: number;
  /** Checked before each reply: true ends the drive (e.g. a wall-clock budget ran out). */
  stopped?: () => boolean;
}

export interface DriveResult {
  /**
   * `done`: nothing waits; `left`: `reply` left something waiting; `stopped`: `stopped()` said so;
   * `round_limit`: still waiting after `maxRounds` replies.
   */
  end: 'done' | 'left' | 'stopped' | 'round_limit';
  /** What the thread waits on at the end, if anything. */
  waiting?: Waiting;
  /** Replies sent after the first message. */
  rounds: number;
}

/** What the thread waits on now, read from its session in the store. */
export async function waitingIn(store: Store, threadKey: ThreadKey): Promise<Waiting | undefined> {
  const session = await store.get<SessionRecord>(sessionKey(threadKey));
  if (session?.conversation.pending) return session.conversation.pending;
  if (session?.playbookDraft) return { kind: 'playbook', title: session.playbookDraft.title };
  return undefined;
}

/** A reviewer's click on Accept or Discard for the section (or playbook draft) waiting. */
export function reviewClick(action: 'accept' | 'discard', waiting: Waiting): ThreadReply | undefined {
  if (waiting.kind === 'review') {
    return { text: '', action: { id: ACTION_IDS[action], value: `${waiting.section}@${waiting.version}` } };
  }
  if (waiting.kind === 'playbook') return { text: '', action: { id: ACTION_IDS[action], value: 'playbook' } };
  return undefined;
}

/** Sends `first`, then replies until the thread waits on nothing (or the drive ends otherwise). */
export async function driveThread(
  first: ThreadReply & { files?: SharedFile[] },
  options: DriveThreadOptions,
): Promise<DriveResult> {
  const send = (message: ThreadReply & { files?: SharedFile[] }) =>
    options.handle({
      threadKey: options.threadKey,
      user: { id: options.userId },
      text: message.text,
      receivedAt: Date.now(),
      ...(message.action ? { action: message.action } : {}),
      ...(message.files?.length ? { files: message.files } : {}),
    });
  await send(first);
  const maxRounds = options.maxRounds ?? 12;
  for (let rounds = 0; ; rounds += 1) {
    const waiting = await waitingIn(options.store, options.threadKey);
    if (!waiting) return { end: 'done', rounds };
    if (options.stopped?.()) return { end: 'stopped', waiting, rounds };
    if (rounds >= maxRounds) return { end: 'round_limit', waiting, rounds };
    const reply = options.reply(waiting);
    if (reply === undefined) return { end: 'left', waiting, rounds };
    await send(typeof reply === 'string' ? { text: reply } : reply);
  }
}
