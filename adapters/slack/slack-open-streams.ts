/**
 * The streamed message a thread's turn has open, kept in the store (`PostMemory`) while it is open. A process that
 * dies mid-turn leaves its stream streaming; turns of a thread never overlap, so a stream still on record when the
 * thread's next turn begins (in another replica, or in this process after a restart) is one nobody will stop, and
 * that turn stops it with a line saying where the work went on. Without a store, only this process's own are known.
 */
import type { Logger } from '../../src/base/logger.js';
import type { ThreadKey } from '../../src/ports/chat.js';
import type { PostMemory } from '../common/remembered-posts.js';

/** What the stream a dead process left open says when it is stopped. */
export const LEFT_OPEN_TEXT = '_tally restarted while working on this; it went on below._';
/** A stream is never open longer than a turn lasts; a day is well beyond that. */
const KEEP_MS = 24 * 60 * 60_000;

interface OpenStream {
  channel: string;
  ts: string;
}

export class OpenStreams {
  constructor(
    private readonly memory: PostMemory | undefined,
    private readonly logger: Logger,
  ) {}

  async opened(threadKey: ThreadKey, stream: OpenStream): Promise<void> {
    await this.memory
      ?.set(key(threadKey), stream, KEEP_MS)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not record an open stream'));
  }

  async closed(threadKey: ThreadKey): Promise<void> {
    await this.memory
      ?.delete?.(key(threadKey))
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not record a stopped stream'));
  }

  /** The stream the thread's previous turn left open, if any: taken off the record. */
  async leftOpen(threadKey: ThreadKey): Promise<OpenStream | undefined> {
    const left = await this.memory?.get<OpenStream>(key(threadKey)).catch(() => undefined);
    if (left) await this.closed(threadKey);
    return left ?? undefined;
  }
}

const key = (threadKey: ThreadKey) => `slack-open-stream:${threadKey}`;
