/**
 * What tally is doing, shown in a Discord thread: the typing indicator, and one status message that
 * is edited as the work goes on (changes coalesced to one per interval). A real post supersedes a
 * pending status and the status message is removed, so the thread ends with the answer.
 */
import type { Logger } from '../../src/base/logger.js';

interface StatusChannel {
  sendTyping(): Promise<void>;
  send(options: {
    content: string;
  }): Promise<{ id: string; edit(options: { content: string }): Promise<unknown>; delete(): Promise<unknown> }>;
}

interface ThreadStatus {
  text: string | undefined;
  timer: NodeJS.Timeout | undefined;
  lastSentAt: number;
  message?: { id: string; edit(options: { content: string }): Promise<unknown>; delete(): Promise<unknown> };
}

export class DiscordStatus {
  private readonly threads = new Map<string, ThreadStatus>();
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly channel: (threadId: string) => Promise<StatusChannel>,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  set(threadId: string, text: string): void {
    const state = this.state(threadId);
    state.text = text.slice(0, 200);
    if (state.timer) return;
    const wait = Math.max(0, state.lastSentAt + this.intervalMs - Date.now());
    state.timer = setTimeout(() => {
      state.timer = undefined;
      this.flushing = this.flushing.then(() => this.show(threadId, state));
    }, wait);
  }

  /** A real post went out: drop a pending status and remove the status message. */
  async settled(threadId: string): Promise<void> {
    const state = this.threads.get(threadId);
    if (!state) return;
    if (state.timer) clearTimeout(state.timer);
    state.timer = undefined;
    state.text = undefined;
    await this.flushing;
    const message = state.message;
    delete state.message;
    await message?.delete().catch((error: unknown) => this.logger.debug({ err: error }, 'status message already gone'));
  }

  async close(): Promise<void> {
    for (const state of this.threads.values()) if (state.timer) clearTimeout(state.timer);
    await this.flushing;
  }

  private state(threadId: string): ThreadStatus {
    const existing = this.threads.get(threadId);
    if (existing) return existing;
    const created: ThreadStatus = { text: undefined, timer: undefined, lastSentAt: 0 };
    this.threads.set(threadId, created);
    return created;
  }

  private async show(threadId: string, state: ThreadStatus): Promise<void> {
    const text = state.text;
    if (text === undefined) return;
    state.lastSentAt = Date.now();
    try {
      const channel = await this.channel(threadId);
      await channel.sendTyping();
      const content = `*… ${text}*`;
      if (state.message) await state.message.edit({ content });
      else state.message = await channel.send({ content });
    } catch (error) {
      this.logger.warn({ err: error }, 'could not show the thread status');
    }
  }
}
