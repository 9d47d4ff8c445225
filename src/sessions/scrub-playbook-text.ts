/**
 * A turn that followed a playbook keeps the playbook's text in its history (a message of its own after the request's
 * message, or after a multi-step triage, so later requests repeat it as a cached prefix). When the playbook is deleted with
 * the thread it was saved from (`tally forget`), its text goes from every other thread's history too.
 */
import { guidancePlaybookFile } from '../agent/playbooks.js';
import type { ThreadKey } from '../ports/chat.js';
import type { Store } from '../ports/store.js';
import { lockName, type SessionRecord, sessionKey } from './session-record.js';

export const DELETED_PLAYBOOK_TEXT = '[a playbook followed here was deleted, and its text with it]';

/** Empties the thread's playbook messages that carried one of these playbook files; returns how many. */
export async function scrubPlaybookText(threadKey: ThreadKey, files: readonly string[], store: Store): Promise<number> {
  if (files.length === 0) return 0;
  return store.withLock(lockName(threadKey), async () => {
    const session = await store.get<SessionRecord>(sessionKey(threadKey));
    if (!session) return 0;
    let scrubbed = 0;
    const messages = session.conversation.messages.map((message) => {
      const file = message.role === 'user' ? guidancePlaybookFile(message.content) : undefined;
      if (file === undefined || !files.includes(file)) return message;
      scrubbed += 1;
      return { ...message, content: DELETED_PLAYBOOK_TEXT };
    });
    if (scrubbed > 0) {
      await store.set(sessionKey(threadKey), { ...session, conversation: { ...session.conversation, messages } });
    }
    return scrubbed;
  });
}
