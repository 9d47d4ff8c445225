/**
 * What tally is doing, shown in a Slack thread without spamming it: the latest status of a thread is
 * sent at most once per interval with `assistant.threads.setStatus`; where that method is refused,
 * one status message per thread is posted and then updated. A real post supersedes a pending status
 * (Slack clears the status itself when the app posts).
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from '../../src/base/logger.js';
import type { ChannelQueue } from '../common/channel-queue.js';
import type { SlackThread } from './slack-thread-key.js';

interface ThreadStatus {
  thread: SlackThread;
  text: string | undefined;
  timer: NodeJS.Timeout | undefined;
  lastSentAt: number;
  /** The fallback status message, once posted. */
  messageTs?: string;
}

export class SlackStatus {
  private readonly threads = new Map<string, ThreadStatus>();
  private fallback = false;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: webApi.WebClient,
    private readonly queue: ChannelQueue,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  set(thread: SlackThread, text: string): void {
    const state = this.state(thread);
    state.text = text.slice(0, 200);
    if (state.timer) return;
    const wait = Math.max(0, state.lastSentAt + this.intervalMs - Date.now());
    state.timer = setTimeout(() => {
      state.timer = undefined;
      this.flushing = this.flushing.then(() => this.send(state));
    }, wait);
  }

  /** A real post went out: a status not yet shown is stale now. */
  settled(thread: SlackThread): void {
    const state = this.threads.get(key(thread));
    if (!state) return;
    if (state.timer) clearTimeout(state.timer);
    state.timer = undefined;
    state.text = undefined;
  }

  async close(): Promise<void> {
    for (const state of this.threads.values()) if (state.timer) clearTimeout(state.timer);
    await this.flushing;
  }

  private state(thread: SlackThread): ThreadStatus {
    const existing = this.threads.get(key(thread));
    if (existing) return existing;
    const created: ThreadStatus = { thread, text: undefined, timer: undefined, lastSentAt: 0 };
    this.threads.set(key(thread), created);
    return created;
  }

  private async send(state: ThreadStatus): Promise<void> {
    const text = state.text;
    if (text === undefined) return;
    state.lastSentAt = Date.now();
    const { channel, threadTs } = state.thread;
    try {
      if (!this.fallback) {
        try {
          await this.client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status: text });
          return;
        } catch (error) {
          // Missing scope or not an assistant thread: show a status message instead from now on.
          this.logger.info({ err: error }, 'thread status refused; using a status message');
          this.fallback = true;
        }
      }
      const shown = `_… ${text}_`;
      await this.queue.run(channel, async () => {
        if (state.messageTs) await this.client.chat.update({ channel, ts: state.messageTs, text: shown });
        else {
          const posted = await this.client.chat.postMessage({ channel, thread_ts: threadTs, text: shown });
          if (posted.ts) state.messageTs = posted.ts;
        }
      });
    } catch (error) {
      this.logger.warn({ err: error }, 'could not show the thread status');
    }
  }
}

const key = (thread: SlackThread) => `${thread.channel}:${thread.threadTs}`;
