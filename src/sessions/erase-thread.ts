/**
 * Deletion of what tally keeps about a thread, for retention and for deletion on request: the session
 * (conversation, settings, playbook draft), its log, journal, inbox, report and figures, shared files,
 * edits, its kernel and workspace (when this process holds them), and its place in the session lists.
 * Every key that hangs off a thread key is named here, so a new one added elsewhere belongs here too.
 *
 * The second half scrubs one person's words from a thread someone else started: their messages in the
 * inbox and the log are emptied (positions kept), and copies of their words elsewhere in the log (the
 * request the agent took up, tool calls) and in the conversation replaced.
 */

import type { LogEntry } from '../agent/log-event.js';
import { LockTimeoutError } from '../base/errors.js';
import { openPostKey, REMEMBERED_POST_PREFIX, type ThreadKey } from '../ports/chat.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { Store } from '../ports/store.js';
import { reportNames } from '../report/report-book.js';
import { Inbox, inboxNames } from './inbox.js';
import { userSessionsKey } from './session-directory.js';
import { logKey, SESSIONS_LIST } from './session-log.js';
import {
  editedKey,
  journalKey,
  journalStartKey,
  lockName,
  type SessionRecord,
  savedPlaybookKey,
  sessionKey,
  sharedFilesPrefix,
  uploadKey,
} from './session-record.js';

/** How much of a thread went. */
export interface ErasedThread {
  /** Values and lists deleted from the store. */
  entries: number;
  /** A kernel (and its workspace) disposed. */
  kernels: number;
  /** The saved playbook's path, when the caller should delete that file too. */
  playbook?: string;
}

export interface EraseOptions {
  store: Store;
  /** Disposes the thread's kernel and workspace, when this process has one. */
  sandbox?: Pick<Sandbox, 'release'>;
  /** Give up (return undefined) instead of waiting when a turn holds the thread. Default: wait. */
  skipBusy?: boolean;
  /** What adapters remember of the thread's posts (see `rememberedPosts`); they go too. */
  posts?: ReadonlyMap<ThreadKey, string[]>;
}

/**
 * The names of what adapters remember about their posts (`post:<platform>:<id>`, kept 30 days: which review
 * or held cell a message is, and its thread), by thread: one scan for many threads.
 */
export async function rememberedPosts(store: Store): Promise<Map<ThreadKey, string[]>> {
  const byThread = new Map<ThreadKey, string[]>();
  for (const name of await store.keys(REMEMBERED_POST_PREFIX)) {
    const threadKey = (await store.get<{ threadKey?: unknown }>(name))?.threadKey;
    if (typeof threadKey === 'string') byThread.set(threadKey, [...(byThread.get(threadKey) ?? []), name]);
  }
  return byThread;
}

/** Erases the thread, holding its lock so no turn runs meanwhile; undefined when it was busy and `skipBusy`. */
export async function eraseThread(threadKey: ThreadKey, options: EraseOptions): Promise<ErasedThread | undefined> {
  const { store } = options;
  try {
    return await store.withLock(
      lockName(threadKey),
      async () => {
        const session = await store.get<SessionRecord>(sessionKey(threadKey));
        const playbook = await store.get<string>(savedPlaybookKey(threadKey));
        const inbox = inboxNames(threadKey);
        const report = reportNames(threadKey);
        const names = [
          sessionKey(threadKey),
          journalKey(threadKey),
          journalStartKey(threadKey),
          logKey(threadKey),
          savedPlaybookKey(threadKey),
          ...inbox.names,
          ...report.names,
          ...(options.posts?.get(threadKey) ?? []),
          openPostKey(threadKey),
        ];
        const prefixes = [
          ...inbox.prefixes,
          ...report.prefixes,
          editedKey(threadKey, ''),
          uploadKey(threadKey, ''),
          sharedFilesPrefix(threadKey),
        ];
        for (const prefix of prefixes) names.push(...(await store.keys(prefix)));
        for (const name of names) await store.delete(name);
        await store.remove(SESSIONS_LIST, threadKey);
        if (session) await store.remove(userSessionsKey(session.owner), threadKey);
        const kernels = (await options.sandbox?.release(threadKey)) ? 1 : 0;
        return { entries: names.length, kernels, ...(playbook ? { playbook } : {}) };
      },
      options.skipBusy ? { waitMs: 0 } : {},
    );
  } catch (error) {
    if (options.skipBusy && error instanceof LockTimeoutError) return undefined;
    throw error;
  }
}

/** What scrubbing one person from a thread changed. */
export interface ScrubbedThread {
  messages: number;
}

export const REMOVED_TEXT = '[removed at the request of the person who wrote it]';

/** Empties `user`'s messages in a thread they did not start (inbox, log and conversation), holding its lock. */
export async function scrubUser(threadKey: ThreadKey, user: string, store: Store): Promise<ScrubbedThread> {
  return store.withLock(lockName(threadKey), async () => {
    const inbox = new Inbox(store);
    const items = await inbox.items(threadKey);
    const theirs = items.filter((item) => item.inbound.user.id === user);
    const log = await store.range<LogEntry>(logKey(threadKey));
    const words = new Set([
      ...theirs.map((item) => item.inbound.text),
      ...log.flatMap((entry) => (entry.kind === 'message' && entry.user === user ? [entry.text] : [])),
    ]);
    words.delete('');
    if (theirs.length > 0) {
      await inbox.rewrite(
        threadKey,
        items.map((item) =>
          item.inbound.user.id === user ? { ...item, inbound: { ...item.inbound, text: REMOVED_TEXT } } : item,
        ),
      );
    }
    const without = withoutWords([...words]);
    const cleanedLog = log.map((entry) =>
      entry.kind === 'message' && entry.user === user ? { ...entry, text: REMOVED_TEXT } : without(entry),
    );
    if (JSON.stringify(cleanedLog) !== JSON.stringify(log)) {
      await store.delete(logKey(threadKey));
      for (const entry of cleanedLog) await store.append(logKey(threadKey), entry);
    }
    const session = await store.get<SessionRecord>(sessionKey(threadKey));
    if (session && words.size > 0) {
      const cleaned = without(session);
      if (JSON.stringify(cleaned) !== JSON.stringify(session)) await store.set(sessionKey(threadKey), cleaned);
    }
    return { messages: Math.max(theirs.length, words.size) };
  });
}

/**
 * Replaces each of `words` where it stands as a whole in a string of a value (names of fields are left
 * alone, and so is a word inside a longer one: a person who wrote "user" or "no" must not break others' records).
 */
function withoutWords(words: readonly string[]): <T>(value: T) => T {
  const patterns = words.map(
    (word) => new RegExp(`(?<![\\p{L}\\p{N}_])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}_])`, 'gu'),
  );
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string')
      return patterns.reduce((text, pattern) => text.replace(pattern, () => REMOVED_TEXT), value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, walk(item)]));
    }
    return value;
  };
  return <T>(value: T) => walk(value) as T;
}
