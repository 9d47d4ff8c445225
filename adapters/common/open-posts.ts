/**
 * The message a thread's running turn keeps changing (a Slack stream, a Discord progress message), kept in the
 * store (`PostMemory`) while the turn runs. A process that dies mid-turn leaves it half-done; turns of a thread never
 * overlap, so one still on record when the thread's next turn begins (in another replica, or in this process after a
 * restart) is one nobody will finish, and that turn closes it with a line saying where the work went on. Without a
 * store, only this process's own are known.
 */
import type { Logger } from '../../src/base/logger.js';
import { openPostKey } from '../../src/ports/chat.js';
import type { PostMemory } from './remembered-posts.js';

/** A turn is never open longer than a day. */
const KEEP_MS = 24 * 60 * 60_000;

export class OpenPosts<T> {
  constructor(
    private readonly memory: PostMemory | undefined,
    private readonly logger: Logger,
  ) {}

  async opened(threadKey: string, post: T): Promise<void> {
    await this.memory
      ?.set(this.key(threadKey), post, KEEP_MS)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not record an open post'));
  }

  /** The turn finished it. With `mine`, only if the record is still that post (a later turn's stays on record). */
  async closed(threadKey: string, mine?: (post: T) => boolean): Promise<void> {
    try {
      if (mine) {
        const recorded = await this.memory?.get<T>(this.key(threadKey));
        if (recorded === undefined || !mine(recorded)) return;
      }
      await this.memory?.delete?.(this.key(threadKey));
    } catch (error) {
      this.logger.warn({ err: error }, 'could not record a finished post');
    }
  }

  /** The post the thread's previous turn left open, if any: taken off the record. */
  async leftOpen(threadKey: string): Promise<T | undefined> {
    const left = await this.memory?.get<T>(this.key(threadKey)).catch(() => undefined);
    if (left !== undefined) await this.closed(threadKey);
    return left;
  }

  private key(threadKey: string): string {
    return openPostKey(threadKey);
  }
}
