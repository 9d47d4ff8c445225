/**
 * Which thread `tally chat` talks in: the one named in TALLY_HOME/chat-thread, so a restarted chat
 * goes on where it was. `new` in the chat (or `tally chat --new`) starts another and names it there.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ThreadKey } from '../ports/chat.js';

/** The thread of a home that never started another (every chat used it before threads could be new). */
export const FIRST_CHAT_THREAD: ThreadKey = 'console:local:chat';

const PREFIX = 'console:local:chat-';

function threadFile(home: string): string {
  return join(home, 'chat-thread');
}

/** The thread chat goes on with: the latest one started in `home`. */
export async function currentChatThread(home: string): Promise<ThreadKey> {
  const named = await readFile(threadFile(home), 'utf8').catch(() => '');
  return named.trim() || FIRST_CHAT_THREAD;
}

/** Starts a thread (`console:local:chat-<ms since 1970>`) and names it the current one in `home`. */
export async function startChatThread(home: string, now = Date.now()): Promise<ThreadKey> {
  const current = await currentChatThread(home);
  // Two in the same millisecond (piped input) must still be two threads.
  const previous = current.startsWith(PREFIX) ? Number(current.slice(PREFIX.length)) : 0;
  const threadKey = `${PREFIX}${Math.max(now, (Number.isFinite(previous) ? previous : 0) + 1)}`;
  await mkdir(home, { recursive: true });
  await writeFile(threadFile(home), `${threadKey}\n`);
  return threadKey;
}
