/** What tally keeps per thread in the store, so any replica, or a restarted process, can go on. */
import { type Conversation, emptyConversation } from '../agent/conversation.js';
import { type AgentSettings, DEFAULT_SETTINGS } from '../agent/settings.js';
import type { ThreadKey } from '../ports/chat.js';

export interface SessionRecord {
  threadKey: ThreadKey;
  createdAt: number;
  /** Who started the thread; reviewers and owners matter in later features. */
  owner: string;
  settings: AgentSettings;
  conversation: Conversation;
}

export type { KernelJournalEntry as JournalEntry } from '../agent/tool.js';

export const sessionKey = (threadKey: ThreadKey) => `session:${threadKey}`;
export const journalKey = (threadKey: ThreadKey) => `journal:${threadKey}`;
export const lockName = (threadKey: ThreadKey) => `thread:${threadKey}`;

export function newSession(threadKey: ThreadKey, owner: string, now: number): SessionRecord {
  return { threadKey, createdAt: now, owner, settings: DEFAULT_SETTINGS, conversation: emptyConversation() };
}
