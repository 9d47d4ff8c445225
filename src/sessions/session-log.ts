/**
 * The per-session log: every message, tool call, cell (and who wrote it), edit, review decision and
 * report version, appended in order to `log:<thread>` in the store. Thread keys are listed once in
 * `sessions`, so the training export can find every session.
 */
import type { Post } from '../ports/chat.js';
import type { Store } from '../ports/store.js';

export type LogEvent =
  /** A person's message, or their click on a control. */
  | { kind: 'message'; user: string; text: string; action?: { id: string; value: string } }
  /** What tally posted (text of text, question, error and code posts; charts and files by title). */
  | { kind: 'post'; post: string; text: string }
  /** A request the agent took up (after triage and any clarification). */
  | { kind: 'request'; text: string }
  | { kind: 'tool_call'; callId: string; tool: string; arguments: string; result: string; failed: boolean }
  | { kind: 'cell'; language: 'python' | 'sql'; code: string; author: 'model' | 'human'; ok: boolean }
  /** A person replaced a proposed cell before it ran. */
  | { kind: 'edit'; user: string; original: string; edited: string }
  | { kind: 'approval'; user: string; decision: 'run' | 'edit' | 'skip'; code: string }
  | { kind: 'decision'; user: string; section: string; version: number; action: string; feedback?: string }
  | { kind: 'report_version'; section: string; version: number; title: string; narrative: string }
  /**
   * The figures of an answer or a section draft, checked against the thread's results: `noted` went
   * back to the model to redo, `posted` was posted (its ungrounded figures marked).
   */
  | {
      kind: 'grounding';
      what: 'answer' | 'section';
      outcome: 'noted' | 'posted';
      figures: number;
      grounded: number;
      ungrounded: string[];
    };

export type LogEntry = LogEvent & { at: number };

export const logKey = (threadKey: string) => `log:${threadKey}`;
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
