/**
 * Live progress in a Discord thread: one message per turn, posted at the turn's first progress post
 * and then edited in place (PATCH), never re-posted. Edits are coalesced: at most one per
 * `intervalMs` per message, counted from when the previous one was answered, always with the latest
 * picture, and the final state (done or failed) is always sent. While a turn runs, the typing
 * indicator is kept on, and a status post ("… stopping") shows as a line of the progress message
 * instead of a second message. A running turn's message is on record in the store (`open`) until its
 * final state is sent; the thread's next turn stops one a dead process left half-edited.
 */
import type { Logger } from '../../src/base/logger.js';
import type { TurnProgress } from '../../src/ports/chat.js';
import type { OpenPosts } from '../common/open-posts.js';
import { renderProgress } from './discord-progress-text.js';

/** What the progress display needs of Discord. */
export interface ProgressTransport {
  /** Runs `task` in the thread's posting order (after the posts queued before it). */
  inOrder<T>(threadId: string, task: () => Promise<T>): Promise<T>;
  /** Posts a message in the thread; resolves with its id. */
  send(threadId: string, content: string): Promise<string>;
  edit(threadId: string, messageId: string, content: string): Promise<void>;
  typing(threadId: string): Promise<void>;
  /** Marks a progress message a dead process left half-edited as stopped (LEFT_OPEN_HEADER). */
  stopLeftOpen(threadId: string, messageId: string): Promise<void>;
}

/** A running turn's progress message, on record by thread key. */
export interface OpenProgress {
  messageId: string;
}

export interface DiscordProgressOptions {
  transport: ProgressTransport;
  /** Where running turns' messages are on record (the store): without it, a dead process's are left as they are. */
  open?: OpenPosts<OpenProgress>;
  /** Least time between two edits of one progress message. Default 1000 ms. */
  intervalMs?: number;
  /** The typing indicator lasts about 10 s; it is renewed this often while a turn runs. Default 8000 ms. */
  typingEveryMs?: number;
  logger: Logger;
  now?: () => number;
}

interface Shown {
  threadId: string;
  /** Names the thread in the store's record of its open message. */
  threadKey: string;
  latest: TurnProgress;
  note: string | undefined;
  /** Bumped on every change; `sent` is the version the message shows. */
  version: number;
  sent: number;
  messageId: string | undefined;
  busy: boolean;
  timer: NodeJS.Timeout | undefined;
  /** When the last post or edit was answered (0: never). */
  answeredAt: number;
  /** When the turn stopped running, for the time taken. */
  endedAt: number | undefined;
}

/** Discord's "Unknown Message": someone deleted the progress message. */
const UNKNOWN_MESSAGE = 10008;

export class DiscordProgress {
  private readonly turns = new Map<string, Shown>();
  /** The running turn of each thread. */
  private readonly live = new Map<string, Shown>();
  private readonly typing = new Map<string, NodeJS.Timeout>();
  private readonly flushes = new Set<Promise<void>>();
  private readonly now: () => number;

  constructor(private readonly options: DiscordProgressOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The turn's progress changed: shown now if nothing was shown yet, else at the next allowed edit. */
  show(threadId: string, progress: TurnProgress, threadKey = threadId): void {
    let shown = this.turns.get(progress.turnId);
    if (!shown) {
      shown = {
        threadId,
        threadKey,
        latest: progress,
        note: undefined,
        version: 0,
        sent: 0,
        messageId: undefined,
        busy: false,
        timer: undefined,
        answeredAt: 0,
        endedAt: undefined,
      };
      this.turns.set(progress.turnId, shown);
      if (progress.state === 'running') this.stopLeftOpen(threadId, threadKey);
    }
    shown.latest = progress;
    shown.version += 1;
    if (progress.state === 'running') {
      this.live.set(threadId, shown);
      this.keepTyping(threadId);
    } else {
      shown.endedAt ??= this.now();
      shown.note = undefined;
      if (this.live.get(threadId) === shown) {
        this.live.delete(threadId);
        this.stopTyping(threadId);
      }
    }
    this.schedule(shown);
  }

  /**
   * A status for the thread (`undefined` clears it): shown in the running turn's progress message.
   * False when no turn is running there, so the caller shows it another way.
   */
  note(threadId: string, text: string | undefined): boolean {
    const shown = this.live.get(threadId);
    if (!shown) return false;
    if (shown.note !== text) {
      shown.note = text;
      shown.version += 1;
      this.schedule(shown);
    }
    return true;
  }

  /** Stops the timers and waits for the posts and edits under way; changes not yet sent are dropped. */
  async close(): Promise<void> {
    for (const shown of this.turns.values()) clearTimeout(shown.timer);
    for (const threadId of [...this.typing.keys()]) this.stopTyping(threadId);
    this.turns.clear();
    this.live.clear();
    await Promise.allSettled([...this.flushes]);
  }

  private schedule(shown: Shown): void {
    if (shown.busy || shown.timer || shown.sent === shown.version) return;
    const wait = shown.messageId === undefined ? 0 : shown.answeredAt + (this.options.intervalMs ?? 1000) - this.now();
    if (wait <= 0) {
      this.flush(shown);
      return;
    }
    shown.timer = setTimeout(() => {
      shown.timer = undefined;
      this.flush(shown);
    }, wait);
  }

  /** Sends the latest picture; queued in the thread at once, so posts after it stay after it. */
  private flush(shown: Shown): void {
    if (!this.turns.has(shown.latest.turnId)) return; // closed meanwhile
    shown.busy = true;
    const version = shown.version;
    const content = renderProgress(shown.latest, {
      now: shown.endedAt ?? this.now(),
      ...(shown.note ? { note: shown.note } : {}),
    });
    const { transport } = this.options;
    const flushing = transport
      .inOrder(shown.threadId, async () => {
        if (shown.messageId !== undefined) return transport.edit(shown.threadId, shown.messageId, content);
        const messageId = await transport.send(shown.threadId, content);
        shown.messageId = messageId;
        if (shown.latest.state === 'running') await this.options.open?.opened(shown.threadKey, { messageId });
      })
      .catch((error: unknown) => {
        if ((error as { code?: unknown }).code === UNKNOWN_MESSAGE) shown.messageId = undefined;
        this.options.logger.warn({ err: error }, 'could not show the turn progress');
      })
      .finally(() => {
        shown.busy = false;
        shown.answeredAt = this.now();
        shown.sent = version;
        this.flushes.delete(flushing);
        if (shown.latest.state !== 'running' && shown.sent === shown.version) {
          this.turns.delete(shown.latest.turnId);
          this.track(this.options.open?.closed(shown.threadKey, (post) => post.messageId === shown.messageId));
        } else this.schedule(shown);
      });
    this.flushes.add(flushing);
  }

  /**
   * A new turn runs in the thread: the message its previous turn left on record is stopped, unless this process is
   * still finishing it (its final state not sent yet). Queued before the new turn's first post.
   */
  private stopLeftOpen(threadId: string, threadKey: string): void {
    const { open, transport, logger } = this.options;
    if (!open) return;
    const mine = (messageId: string) => [...this.turns.values()].some((shown) => shown.messageId === messageId);
    this.track(
      transport
        .inOrder(threadId, async () => {
          const left = await open.leftOpen(threadKey);
          if (left && !mine(left.messageId)) await transport.stopLeftOpen(threadId, left.messageId);
        })
        .catch((error: unknown) => logger.debug({ err: error }, 'could not stop a progress message left open')),
    );
  }

  /** Keeps `close()` waiting for work under way. */
  private track(work: Promise<void> | undefined): void {
    if (!work) return;
    this.flushes.add(work);
    void work.finally(() => this.flushes.delete(work));
  }

  private keepTyping(threadId: string): void {
    if (this.typing.has(threadId)) return;
    const type = () => void this.options.transport.typing(threadId).catch(() => undefined);
    type();
    const timer = setInterval(type, this.options.typingEveryMs ?? 8000);
    timer.unref();
    this.typing.set(threadId, timer);
  }

  private stopTyping(threadId: string): void {
    clearInterval(this.typing.get(threadId));
    this.typing.delete(threadId);
  }
}
