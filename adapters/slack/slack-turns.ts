/**
 * What a Slack thread shows while a turn works: one streamed message per turn (`SlackStream`),
 * opened at the turn's first progress post, addressed to the person who asked, with a plan block
 * when the turn has a plan (`task_display_mode: plan`, else `timeline`), a task card per call and
 * the turn's text as markdown, stopped when the turn ends. Text posts that arrive while a turn runs
 * belong to its message; anything else is the adapter's to post.
 *
 * Where streams are refused (remembered per workspace, `StreamingRefusals`) or a stream call fails
 * mid-turn, the turn shows as before streams: the task under way as the thread status, the plan
 * posted once as a message, text posted as messages; text a failed call may not have shown is
 * posted, so nothing is lost. Posts of one thread are handled one at a time, in order.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from '../../src/base/logger.js';
import type { MessageRef, Post, ThreadKey, TurnProgress } from '../../src/ports/chat.js';
import type { ChannelQueue } from '../common/channel-queue.js';
import type { OpenPosts } from '../common/open-posts.js';
import type { PostMemory } from '../common/remembered-posts.js';
import { LEFT_OPEN_TEXT, type OpenStream, openStreams } from './slack-open-streams.js';
import type { SlackStatus } from './slack-status.js';
import { SlackStream, type StreamCalls, type StreamFailure } from './slack-stream.js';
import { markdownChunks, nothingSent, progressChunks, type SentProgress } from './slack-stream-chunks.js';
import { isStreamingRefusal, StreamingRefusals } from './slack-stream-refusals.js';
import { parseSlackThreadKey, type SlackThread } from './slack-thread-key.js';
import { fallbackStatus, planMarkdown } from './slack-turn-fallback.js';

export interface SlackTurnsOptions {
  client: webApi.WebClient;
  /** The adapter's per-channel queue: the stream opens in its place among the channel's posts. */
  queue: ChannelQueue;
  status: SlackStatus;
  /** Posts markdown as ordinary messages (the adapter's own path). */
  postText: (threadKey: ThreadKey, markdown: string) => Promise<unknown>;
  /** Where refusing workspaces are remembered across restarts. */
  memory?: PostMemory;
  /** Least time between two calls of one stream. Default 400 ms. */
  intervalMs?: number;
  logger: Logger;
}

/** Threads whose last turn and plan are kept; the oldest are forgotten beyond this. */
const KEEP_THREADS = 1000;

/** Sets `key` in a map that keeps at most KEEP_THREADS entries, forgetting the oldest. */
function keep<T>(map: Map<ThreadKey, T>, key: ThreadKey, value: T): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= KEEP_THREADS) break;
    map.delete(oldest);
  }
}

interface Turn {
  turnId: string;
  threadKey: ThreadKey;
  thread: SlackThread;
  /** Undefined when the turn is not (or no longer) streamed. */
  stream: SlackStream | undefined;
  sent: SentProgress;
  wroteText: boolean;
  last: TurnProgress;
}

export class SlackTurns {
  private readonly turns = new Map<ThreadKey, Turn>();
  private readonly ended = new Map<ThreadKey, string>();
  private readonly chains = new Map<ThreadKey, Promise<unknown>>();
  private readonly plansShown = new Map<ThreadKey, string>();
  private readonly refusals: StreamingRefusals;
  private readonly open: OpenPosts<OpenStream>;

  constructor(private readonly options: SlackTurnsOptions) {
    this.refusals = new StreamingRefusals(options.memory);
    this.open = openStreams(options.memory, options.logger);
  }

  /**
   * Shows a progress post, or a text post of the thread's streamed turn. Resolves undefined for a
   * post that is not the turn's to show (text outside a streamed turn): the adapter posts it.
   */
  take(threadKey: ThreadKey, post: Post): Promise<MessageRef | undefined> {
    const previous = this.chains.get(threadKey) ?? Promise.resolve();
    const result = previous.then(() => {
      if (post.kind === 'progress') return this.progress(threadKey, post.progress);
      if (post.kind === 'text') return this.text(threadKey, post.markdown);
      return undefined;
    });
    const tail = result.catch(() => undefined);
    this.chains.set(threadKey, tail);
    void tail.then(() => {
      if (this.chains.get(threadKey) === tail) this.chains.delete(threadKey);
    });
    return result;
  }

  /** Stops every open stream with what it still has to send. */
  async close(): Promise<void> {
    await Promise.all([...this.chains.values()]);
    await Promise.all([...this.turns.values()].map((turn) => this.end(turn)));
  }

  private async progress(threadKey: ThreadKey, progress: TurnProgress): Promise<MessageRef> {
    let turn = this.turns.get(threadKey);
    if (turn && turn.turnId !== progress.turnId) {
      await this.end(turn); // a turn that never said it ended
      turn = undefined;
    }
    if (!turn) {
      // A late post of a turn that ended, or the end of a turn this process never saw running.
      if (this.ended.get(threadKey) === progress.turnId || progress.state !== 'running') return { threadKey, id: '' };
      turn = await this.begin(threadKey, progress);
    }
    turn.last = progress;
    if (turn.stream) turn.stream.push(progressChunks(turn.sent, progress));
    else await this.showWithoutStream(turn, progress, true);
    const id = turn.stream?.ts ?? '';
    if (progress.state !== 'running') await this.end(turn);
    return { threadKey, id };
  }

  private text(threadKey: ThreadKey, markdown: string): MessageRef | undefined {
    const turn = this.turns.get(threadKey);
    if (!turn?.stream || turn.stream.failed) return undefined;
    turn.stream.push(markdownChunks(`${turn.wroteText ? '\n\n' : ''}${markdown}`));
    turn.wroteText = true;
    return { threadKey, id: turn.stream.ts ?? '' };
  }

  private async begin(threadKey: ThreadKey, progress: TurnProgress): Promise<Turn> {
    const thread = parseSlackThreadKey(threadKey);
    await this.stopLeftOpen(threadKey);
    const turn: Turn = {
      turnId: progress.turnId,
      threadKey,
      thread,
      stream: undefined,
      sent: nothingSent(),
      wroteText: false,
      last: progress,
    };
    this.turns.set(threadKey, turn);
    // Outside DMs a stream is addressed to a person; without a Slack user there is no one to address.
    const addressable = thread.channel.startsWith('D') || /^[UW][A-Z0-9]+$/.test(progress.userId);
    if (!addressable || (await this.refusals.refuses(thread.team))) return turn;
    const stream = new SlackStream({
      calls: this.calls(threadKey, thread, progress),
      ...(this.options.intervalMs !== undefined ? { intervalMs: this.options.intervalMs } : {}),
      onFailure: (failure) => this.failed(turn, failure),
    });
    turn.stream = stream;
    // Opened now, in the channel's queue: whatever the turn posts next lands below it.
    await stream.open(progressChunks(turn.sent, progress));
    return turn;
  }

  private async end(turn: Turn): Promise<void> {
    if (this.turns.get(turn.threadKey) === turn) this.turns.delete(turn.threadKey);
    keep(this.ended, turn.threadKey, turn.turnId);
    await turn.stream?.stop();
  }

  /** The stream gave up: post the text it may not have shown, and show the rest of the turn without it. */
  private async failed(turn: Turn, failure: StreamFailure): Promise<void> {
    const { logger } = this.options;
    const refused = failure.phase === 'start' && isStreamingRefusal(failure.error);
    logger.warn({ err: failure.error, phase: failure.phase, refused }, 'streamed message failed; posting instead');
    const streamTs = turn.stream?.ts;
    turn.stream = undefined;
    if (refused) {
      await this.refusals
        .remember(turn.thread.team)
        .catch((error: unknown) => logger.warn({ err: error }, 'could not remember a streaming refusal'));
    }
    const text = failure.unsent
      .map((chunk) => (chunk.type === 'markdown_text' ? chunk.text : ''))
      .join('')
      .replace(/^\n+/, '');
    if (text.trim() !== '') {
      await this.options
        .postText(turn.threadKey, text)
        .catch((error: unknown) => logger.error({ err: error }, 'could not post the text of a failed stream'));
    }
    if (failure.phase !== 'append') return;
    // The message stays as far as it got; close it if Slack still lets us, and go on with the status.
    if (streamTs) {
      await this.options.client.chat
        .stopStream({ channel: turn.thread.channel, ts: streamTs })
        .catch((error: unknown) => logger.debug({ err: error }, 'could not stop a failed stream'));
      await this.open.closed(turn.threadKey);
    }
    await this.showWithoutStream(turn, turn.last, false);
  }

  /** The non-streamed display: the plan once as a message (when `withPlan`), the task as status. */
  private async showWithoutStream(turn: Turn, progress: TurnProgress, withPlan: boolean): Promise<void> {
    const plan = planMarkdown(progress);
    if (withPlan && plan && this.plansShown.get(turn.threadKey) !== plan) {
      keep(this.plansShown, turn.threadKey, plan);
      await this.options.postText(turn.threadKey, plan);
    }
    const status = fallbackStatus(progress);
    if (status) this.options.status.set(turn.thread, status);
  }

  /** A stream the thread's previous turn left open (its process died): stopped, saying where the work went on. */
  private async stopLeftOpen(threadKey: ThreadKey): Promise<void> {
    const left = await this.open.leftOpen(threadKey);
    if (!left) return;
    await this.options.client.chat
      .stopStream({ ...left, chunks: [{ type: 'markdown_text', text: LEFT_OPEN_TEXT }] })
      .catch((error: unknown) => this.options.logger.debug({ err: error }, 'could not stop a stream left open'));
  }

  private calls(threadKey: ThreadKey, thread: SlackThread, progress: TurnProgress): StreamCalls {
    const { client, queue } = this.options;
    const { channel, threadTs, team } = thread;
    const mode = progress.plan.length > 0 ? 'plan' : 'timeline';
    return {
      start: async (chunks) => {
        const started = await queue.run(channel, () =>
          client.chat.startStream({
            channel,
            thread_ts: threadTs,
            recipient_user_id: progress.userId,
            recipient_team_id: team,
            task_display_mode: mode,
            ...(chunks.length > 0 ? { chunks } : {}),
          }),
        );
        if (!started.ts) throw new Error('chat.startStream answered without the message ts');
        await this.open.opened(threadKey, { channel, ts: started.ts });
        return started.ts;
      },
      append: async (ts, chunks) => {
        if (chunks.length > 0) await client.chat.appendStream({ channel, ts, chunks });
      },
      stop: async (ts, chunks) => {
        await client.chat.stopStream({ channel, ts, ...(chunks.length > 0 ? { chunks } : {}) });
        await this.open.closed(threadKey);
      },
    };
  }
}
