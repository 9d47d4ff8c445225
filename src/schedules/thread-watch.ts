/**
 * Lets a scheduled run see what is posted to its thread (the router reports a failed turn by
 * posting an error there), without the router knowing about schedules: serve-chat.ts passes every
 * post through `seen` on its way to the adapter.
 */
import type { Post, ThreadKey } from '../ports/chat.js';

export class ThreadWatch {
  private readonly watchers = new Map<ThreadKey, Set<(post: Post) => void>>();

  /** Calls `onPost` with every post to the thread until the returned function is called. */
  watch(threadKey: ThreadKey, onPost: (post: Post) => void): () => void {
    const set = this.watchers.get(threadKey) ?? new Set();
    set.add(onPost);
    this.watchers.set(threadKey, set);
    return () => {
      set.delete(onPost);
      if (set.size === 0) this.watchers.delete(threadKey);
    };
  }

  seen(threadKey: ThreadKey, post: Post): void {
    for (const onPost of this.watchers.get(threadKey) ?? []) onPost(post);
  }
}
