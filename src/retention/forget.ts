/**
 * Deletion on request: `tally forget --user U` and `--thread T`. A thread goes whole (see
 * `sessions/erase-thread.ts`), with the playbook saved from it (and that playbook's text in the history of the
 * threads that followed it); a person's threads go whole, and their
 * messages in threads others started are emptied. Training exports written before are written again
 * without what went, and replicas drop the kernels they hold for forgotten threads (`forgotten-kernels.ts`).
 * The audit keeps one record that a deletion happened: who asked, the scope, counts; no content.
 */
import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import type { AuditTrail } from '../ports/audit.js';
import type { ThreadKey } from '../ports/chat.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { Store } from '../ports/store.js';
import { eraseThread, rememberedPosts, scrubUser } from '../sessions/erase-thread.js';
import { scrubPlaybookText } from '../sessions/scrub-playbook-text.js';
import { userSessionsKey } from '../sessions/session-directory.js';
import { listSessions } from '../sessions/session-log.js';
import { type SessionRecord, sessionKey } from '../sessions/session-record.js';
import { rewriteTrainingExports } from '../training/export-training.js';
import { FORGOTTEN_THREADS, type ForgottenThread } from './forgotten-kernels.js';

export interface ForgetOptions {
  store: Store;
  audit: AuditTrail;
  /** Who asked (the operator running the command). */
  requestedBy: string;
  sandbox?: Pick<Sandbox, 'release'>;
}

export interface Forgotten {
  threads: number;
  /** Messages emptied in threads others started. */
  messages: number;
  entries: number;
  playbooks: number;
  trainingExports: number;
}

export async function forgetThread(threadKey: ThreadKey, options: ForgetOptions): Promise<Forgotten> {
  const counts = emptyCounts();
  const dropped: string[] = [];
  await eraseOne(threadKey, options, counts, await rememberedPosts(options.store), dropped);
  await scrubDroppedPlaybooks(dropped, options.store);
  counts.trainingExports = await rewriteTrainingExports(options.store);
  await options.audit.record(deletionRecord('thread', threadKey, options.requestedBy, counts));
  return counts;
}

export async function forgetUser(user: string, options: ForgetOptions): Promise<Forgotten> {
  const { store } = options;
  const counts = emptyCounts();
  const theirs = new Set(await store.range<ThreadKey>(userSessionsKey(user)));
  const others: ThreadKey[] = [];
  for (const threadKey of await listSessions(store)) {
    const session = await store.get<SessionRecord>(sessionKey(threadKey));
    if (session?.owner === user) theirs.add(threadKey);
    else if (!theirs.has(threadKey)) others.push(threadKey);
  }
  const posts = await rememberedPosts(store);
  const dropped: string[] = [];
  for (const threadKey of theirs) await eraseOne(threadKey, options, counts, posts, dropped);
  for (const threadKey of others) counts.messages += (await scrubUser(threadKey, user, store)).messages;
  await scrubDroppedPlaybooks(dropped, store);
  for (const name of [userSessionsKey(user), ...(await store.keys(`spend:${user}:`))]) {
    await store.delete(name);
    counts.entries += 1;
  }
  counts.trainingExports = await rewriteTrainingExports(store);
  await options.audit.record(deletionRecord('user', user, options.requestedBy, counts));
  return counts;
}

async function eraseOne(
  threadKey: ThreadKey,
  options: ForgetOptions,
  counts: Forgotten,
  posts: ReadonlyMap<ThreadKey, string[]>,
  dropped: string[],
): Promise<void> {
  const erased = await eraseThread(threadKey, {
    store: options.store,
    posts,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  });
  if (!erased) return;
  counts.threads += 1;
  counts.entries += erased.entries;
  if (erased.playbook) {
    await rm(erased.playbook, { force: true });
    dropped.push(basename(erased.playbook));
    counts.playbooks += 1;
  }
  await options.store.append<ForgottenThread>(FORGOTTEN_THREADS, {
    threadKey,
    ...(erased.playbook ? { playbook: erased.playbook } : {}),
  });
}

/** The deleted playbooks' text goes from the history of every thread that followed them. */
async function scrubDroppedPlaybooks(files: readonly string[], store: Store): Promise<void> {
  if (files.length === 0) return;
  for (const threadKey of await listSessions(store)) await scrubPlaybookText(threadKey, files, store);
}

const emptyCounts = (): Forgotten => ({ threads: 0, messages: 0, entries: 0, playbooks: 0, trainingExports: 0 });

function deletionRecord(scope: 'user' | 'thread', target: string, requestedBy: string, counts: Forgotten) {
  return {
    kind: 'deletion' as const,
    decision: 'allowed' as const,
    deletion: { requestedBy, scope, target, counts: { ...counts } },
  };
}
