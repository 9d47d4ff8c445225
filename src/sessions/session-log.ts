/**
 * The per-session log: every message, tool call, cell (and who wrote it), edit, review decision and
 * report version, appended in order to `log:<thread>` in the store. Thread keys are listed once in
 * `sessions`, so the training export can find every session.
 */

import type { LogEntry, LogEvent } from '../agent/log-event.js';
import type { Post } from '../ports/chat.js';
import type { Store } from '../ports/store.js';

export const logKey = (threadKey: string) => `log:${threadKey}`;
// In a Redis Cluster: one list on one master, appended to once per new thread, by design.
export const SESSIONS_LIST = 'sessions';

export class SessionLog {
  constructor(
    private readonly store: Store,
    private readonly threadKey: string,
    private readonly now: () => number = Date.now,
  ) {}

  async append(event: LogEvent): Promise<void> {
    await this.store.append<LogEntry>(logKey(this.threadKey), { ...event, at: this.now() });
  }

  entries(): Promise<LogEntry[]> {
    return this.store.range<LogEntry>(logKey(this.threadKey));
  }
}

/** Every session's thread key, each once, in the order they started. */
export async function listSessions(store: Store): Promise<string[]> {
  return [...new Set(await store.range<string>(SESSIONS_LIST))];
}

/** What the log keeps of a post: its text (charts and files by title); status lines are not kept. */
export function postEvent(post: Post): LogEvent | undefined {
  switch (post.kind) {
    case 'status':
    case 'progress':
      return undefined;
    case 'rerun':
      return { kind: 'post', post: post.kind, text: post.text };
    case 'text':
      return { kind: 'post', post: post.kind, text: post.markdown };
    case 'code':
      return { kind: 'post', post: post.kind, text: [post.code, post.output ?? post.error ?? ''].join('\n') };
    case 'table':
      return { kind: 'post', post: post.kind, text: `${post.columns.join(', ')} (${post.rows.length} rows)` };
    case 'chart':
      return { kind: 'post', post: post.kind, text: post.title };
    case 'file':
      return { kind: 'post', post: post.kind, text: post.name };
    case 'review':
      return { kind: 'post', post: post.kind, text: `${post.id} v${post.version}: ${post.title}` };
    case 'approval':
      return { kind: 'post', post: post.kind, text: post.code };
    case 'question':
    case 'error':
    case 'notice':
      return { kind: 'post', post: post.kind, text: post.text };
  }
}
