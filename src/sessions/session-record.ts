/** What tally keeps per thread in the store, so any replica, or a restarted process, can go on. */
import { type Conversation, emptyConversation } from '../agent/conversation.js';
import { type AgentSettings, DEFAULT_SETTINGS } from '../agent/settings.js';
import type { UsedGrants } from '../ports/access.js';
import type { ThreadKey } from '../ports/chat.js';

/** A query behind an accepted section's numbers, waiting to be saved as a verified query (query-proposals.ts). */
export interface QueryProposal {
  database: string;
  name: string;
  question: string;
  sql: string;
}

export interface SessionRecord {
  threadKey: ThreadKey;
  createdAt: number;
  /** Who started the thread: they (and configured reviewers) decide on sections and cells. */
  owner: string;
  settings: AgentSettings;
  conversation: Conversation;
  /** Revise was chosen without feedback: the next reply from a reviewer is the feedback for this section. */
  feedbackFor?: { section: string; version: number };
  /** The thread's first request, as the person wrote it (their session list shows it). */
  request?: string;
  /** When a turn last ended in the thread. */
  updatedAt?: number;
  /** Report exports made in the thread (file names). */
  exports?: string[];
  /** A playbook drafted from the accepted report, shown for review and not yet written. */
  playbookDraft?: { file: string; title: string; markdown: string };
  /** The SQL behind an accepted section, proposed as a verified query and not yet written. */
  queryProposal?: QueryProposal;
  /** Under the access policy: the tables (and views of their columns) the thread's turns have read. */
  grantsUsed?: UsedGrants;
}

export type { KernelJournalEntry as JournalEntry } from '../agent/tool.js';

export const sessionKey = (threadKey: ThreadKey) => `session:${threadKey}`;
export const journalKey = (threadKey: ThreadKey) => `journal:${threadKey}`;
export const lockName = (threadKey: ThreadKey) => `thread:${threadKey}`;
/** Where the journal replays from after a reset. */
export const journalStartKey = (threadKey: ThreadKey) => `journal-start:${threadKey}`;
/** An edit of a message that had run, kept until Run again. */
export const editedKey = (threadKey: ThreadKey, messageId: string) => `edited:${threadKey}:${messageId}`;
/** A file shared in the thread, so a new kernel gets it back. */
export const uploadKey = (threadKey: ThreadKey, name: string) => `upload:${threadKey}:${name}`;
/**
 * A file shared with a message, kept by the replica that received it until the message's turn takes it up
 * (on whichever replica): the platform's download link lives only in the receiving process.
 */
export const sharedFileKey = (threadKey: ThreadKey, messageId: string, name: string) =>
  `${sharedFilesPrefix(threadKey)}${messageId}:${name}`;
export const sharedFilesPrefix = (threadKey: ThreadKey) => `shared:${threadKey}:`;
/** The playbook file saved from the thread's report, if any. */
export const savedPlaybookKey = (threadKey: ThreadKey) => `playbook-of:${threadKey}`;

export function newSession(threadKey: ThreadKey, owner: string, now: number): SessionRecord {
  return { threadKey, createdAt: now, owner, settings: DEFAULT_SETTINGS, conversation: emptyConversation() };
}
