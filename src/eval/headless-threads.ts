/**
 * The headless chat of an evaluation: tally posts into it like into any thread, and the harness
 * reads back what each thread showed. No platform, no rendering: posts as the agent made them.
 */
import type { Post, ThreadKey } from '../ports/chat.js';

export class HeadlessThreads {
  private readonly posts = new Map<ThreadKey, Post[]>();

  /** tally's `post` for every thread. */
  readonly post = async (threadKey: ThreadKey, post: Post): Promise<void> => {
    const list = this.posts.get(threadKey) ?? [];
    list.push(post);
    this.posts.set(threadKey, list);
  };

  /** The posts of a thread, from position `from`. */
  of(threadKey: ThreadKey, from = 0): Post[] {
    return (this.posts.get(threadKey) ?? []).slice(from);
  }

  /** Forgets a finished thread (its posts can be large). */
  forget(threadKey: ThreadKey): void {
    this.posts.delete(threadKey);
  }
}

/** A post as one line of a transcript. */
export function postText(post: Post): string {
  switch (post.kind) {
    case 'text':
      return post.markdown;
    case 'code':
      return `[${post.language}]\n${post.code}${post.output ? `\n-> ${post.output}` : ''}${post.error ? `\n!! ${post.error}` : ''}`;
    case 'table':
      return `[table ${post.title ?? ''}: ${post.columns.join(', ')}; ${post.rows.length} rows]`;
    case 'chart':
      return `[chart: ${post.title}]`;
    case 'question':
      return `[question] ${post.text}${post.choices ? ` (${post.choices.join(' / ')})` : ''}`;
    case 'status':
      return `[status] ${post.text}`;
    case 'error':
      return `[error] ${post.text}`;
    case 'review':
      return `[review ${post.id} v${post.version}: ${post.title}]\n${post.markdown}`;
    case 'approval':
      return `[approval ${post.language}]\n${post.code}`;
    case 'file':
      return `[file ${post.name}]`;
    case 'notice':
      return `[notice] ${post.text}`;
    case 'progress':
      return `[progress ${post.progress.state}] ${post.progress.tasks.map((task) => `${task.title}: ${task.status}`).join('; ')}`;
    case 'rerun':
      return `[rerun offered] ${post.text}`;
  }
}
