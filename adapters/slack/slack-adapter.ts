/**
 * Slack as a chat platform, on `@slack/bolt`: Socket Mode (`appToken`) by default, or the HTTP
 * Events API (`signingSecret`, requests verified by Bolt). Posts go out through a per-channel queue
 * (in order, about one message per second, retried on rate limits and transient errors); charts and
 * exports are uploaded with `files.uploadV2`; the thread status uses `assistant.threads.setStatus`,
 * falling back to one status message that is updated, and status changes are coalesced. Every
 * inbound says where it was sent (`place`) and, when the access policy names Slack user groups, which
 * of them the person is in (`user.groups`, `slack-usergroups.ts`).
 */
import type { App } from '@slack/bolt';
import type { Logger } from '../../src/base/logger.js';
import type {
  ChannelKey,
  ChatAdapter,
  Inbound,
  MessageRef,
  Post,
  TallyDirectory,
  ThreadKey,
} from '../../src/ports/chat.js';
import { ChannelQueue } from '../common/channel-queue.js';
import { type PostMemory, RememberedPosts } from '../common/remembered-posts.js';
import { createSlackApp, isTransient } from './slack-app.js';
import { registerSlackListeners } from './slack-listeners.js';
import { toMrkdwn } from './slack-mrkdwn.js';
import { carryOutSlackOp } from './slack-ops.js';
import { type Remembered, renderForSlack, type SlackOp } from './slack-render.js';
import { SlackStatus } from './slack-status.js';
import { parseSlackThreadKey, slackThreadKey } from './slack-thread-key.js';
import { SlackTurns } from './slack-turns.js';
import { SlackUsergroups } from './slack-usergroups.js';

export interface SlackAdapterOptions {
  /** Bot token (`xoxb-…`). */
  botToken: string;
  /** App-level token (`xapp-…`, scope `connections:write`): Socket Mode. */
  appToken?: string;
  /** Signing secret: the HTTP Events API on `port` instead of Socket Mode. */
  signingSecret?: string;
  /** HTTP mode: port of the events endpoint (`/slack/events`). Default 3000. */
  port?: number;
  /** Web API base URL. Default Slack's (`https://slack.com/api/`); tests point it at a stand-in. */
  apiUrl?: string;
  /** Channel ids tally works in; empty or absent: every channel it is in, and DMs. */
  allowedChannels?: string[];
  /** User ids who may use tally; empty or absent: everyone. */
  allowedUsers?: string[];
  /** Threads tally takes part in beyond those started since start-up (sessions in the store). */
  isKnownThread?: (threadKey: ThreadKey) => Promise<boolean>;
  /** Pause between two posts to one channel. Default 1000 ms. */
  minIntervalMs?: number;
  /** Coalesces status changes of a thread to at most one per this. Default 1000 ms. */
  statusIntervalMs?: number;
  /** Least time between two calls to one streamed message (`chat.appendStream`). Default 400 ms. */
  streamIntervalMs?: number;
  /** Web API retries on 429 and network errors. Default 5. */
  retries?: number;
  /** Keeps what review and approval posts are, so reactions and Edit work after a restart. */
  memory?: PostMemory;
  /** A person's sessions, starter prompts and default settings (home surfaces, autocomplete). */
  directory?: TallyDirectory;
  /**
   * The Slack user group ids (`S…`) the access policy names: every inbound carries those the person is in as
   * `user.groups` (read with `usergroups.users.list`, bot scope `usergroups:read`). Empty or absent: inbounds carry
   * no groups and nothing is read.
   */
  usergroups?: readonly string[];
  /** How long a user group's member list is used before it is read again, in ms. Default 300000 (5 minutes). */
  usergroupTtlMs?: number;
  logger: Logger;
}

export class SlackAdapter implements ChatAdapter {
  private readonly app: App;
  private handler: ((inbound: Inbound) => Promise<void>) | undefined;
  private readonly queue: ChannelQueue;
  private readonly status: SlackStatus;
  private readonly turns: SlackTurns;
  private readonly threads = new Set<ThreadKey>();
  private readonly posted: RememberedPosts<Remembered & { threadKey: string }>;
  private botUserId = '';
  /** `auth.test`'s `url` (`https://<team>.slack.com/`), for links to threads. */
  private workspaceUrl = '';
  private server: { address(): unknown } | undefined;
  private started = false;
  private readonly connection: () => boolean;
  private readonly takeAck: () => (() => void) | undefined;
  private readonly usergroups: SlackUsergroups | undefined;
  /** Inbounds waiting for their sender's groups, handed to tally in the order they arrived. */
  private arrivals: Promise<void> = Promise.resolve();

  constructor(private readonly options: SlackAdapterOptions) {
    const slack = createSlackApp(options);
    this.app = slack.app;
    this.connection = slack.isConnected;
    this.takeAck = slack.takeAck;
    this.posted = new RememberedPosts('slack', options.memory);
    this.usergroups = options.usergroups?.length
      ? new SlackUsergroups({
          client: this.app.client,
          usergroups: options.usergroups,
          ...(options.usergroupTtlMs !== undefined ? { ttlMs: options.usergroupTtlMs } : {}),
          logger: options.logger,
        })
      : undefined;
    this.queue = new ChannelQueue({ minIntervalMs: options.minIntervalMs ?? 1000, isTransient });
    this.status = new SlackStatus(this.app.client, this.queue, options.statusIntervalMs ?? 1000, options.logger);
    this.turns = new SlackTurns({
      client: this.app.client,
      queue: this.queue,
      status: this.status,
      postText: (threadKey, markdown) => this.postMessages(threadKey, { kind: 'text', markdown }),
      ...(options.memory ? { memory: options.memory } : {}),
      ...(options.streamIntervalMs !== undefined ? { intervalMs: options.streamIntervalMs } : {}),
      logger: options.logger,
    });
    registerSlackListeners({
      app: this.app,
      botToken: options.botToken,
      botUserId: () => this.botUserId,
      deliver: (inbound) => this.deliver(inbound),
      groupsOf: (userId) => this.groupsOf(userId),
      isKnownThread: async (threadKey) =>
        this.threads.has(threadKey) || ((await options.isKnownThread?.(threadKey)) ?? false),
      markThread: (threadKey) => this.threads.add(threadKey),
      remembered: async (channel, ts) => {
        await this.queue.drained(channel);
        return this.posted.recall(`${channel}:${ts}`);
      },
      allowed: (channel, user) => this.allowed(channel, user),
      refuse: (channel, user, threadTs) => this.refuse(channel, user, threadTs),
      acknowledge: (channel, ts) =>
        this.app.client.reactions.add({ channel, timestamp: ts, name: 'eyes' }).then(
          () => undefined,
          (error: unknown) => options.logger.debug({ err: error }, 'acknowledgement reaction failed'),
        ),
      say: async (threadKey, text) => {
        await this.post(threadKey, { kind: 'text', markdown: text });
      },
      postRoot: (channel, text) =>
        this.queue.run(channel, async () => (await this.app.client.chat.postMessage({ channel, text })).ts ?? ''),
      directory: options.directory,
      workspaceUrl: () => this.workspaceUrl,
      logError: (error, message) => options.logger.error({ err: error }, message),
    });
  }

  onInbound(handler: (inbound: Inbound) => Promise<void>): void {
    this.handler = handler;
  }

  async start(): Promise<void> {
    const auth = await this.app.client.auth.test();
    this.botUserId = String(auth.user_id ?? '');
    this.workspaceUrl = String(auth.url ?? '');
    const started = this.options.appToken ? await this.app.start() : await this.app.start(this.options.port ?? 3000);
    this.server = started as { address(): unknown } | undefined;
    this.started = true;
  }

  isConnected(): boolean {
    return this.started && this.connection();
  }

  /** HTTP mode: the port the events endpoint listens on (useful with port 0). */
  get httpPort(): number | undefined {
    const address = this.server?.address() as { port?: number } | null | undefined;
    return address?.port;
  }

  async stop(): Promise<void> {
    await this.turns.close();
    await this.status.close();
    await this.queue.idle();
    this.started = false;
    await this.app.stop();
  }

  /** A turn's progress and text go to its streamed message (`SlackTurns`); everything else is posted. */
  async post(threadKey: ThreadKey, post: Post): Promise<MessageRef> {
    if (post.kind === 'progress' || post.kind === 'text') {
      const shown = await this.turns.take(threadKey, post);
      if (shown) {
        if (post.kind === 'text') this.status.settled(parseSlackThreadKey(threadKey));
        return shown;
      }
    }
    return this.postMessages(threadKey, post);
  }

  private async postMessages(threadKey: ThreadKey, post: Post): Promise<MessageRef> {
    const thread = parseSlackThreadKey(threadKey);
    let ref: MessageRef = { threadKey, id: '' };
    for (const op of renderForSlack(post)) {
      if (op.kind === 'status') {
        this.status.set(thread, op.text);
        continue;
      }
      // Remembered inside the channel's turn, so a click that waits for the channel finds it.
      const ts = await this.queue.run(thread.channel, async () => {
        const posted = await carryOutSlackOp(this.app.client, thread, op);
        if (posted && op.kind === 'message' && op.remember) {
          await this.posted.remember(`${thread.channel}:${posted}`, { ...op.remember, threadKey });
        }
        return posted;
      });
      if (ts) ref = { threadKey, id: ts };
    }
    if (post.kind !== 'status') this.status.settled(thread);
    return ref;
  }

  async update(ref: MessageRef, post: Post): Promise<void> {
    const thread = parseSlackThreadKey(ref.threadKey);
    const message = renderForSlack(post).find(
      (op): op is Extract<SlackOp, { kind: 'message' }> => op.kind === 'message',
    );
    if (!message || !ref.id) {
      await this.post(ref.threadKey, post);
      return;
    }
    await this.queue.run(thread.channel, () =>
      this.app.client.chat.update({
        channel: thread.channel,
        ts: ref.id,
        text: message.text,
        ...(message.blocks ? { blocks: message.blocks as never } : {}),
      }),
    );
  }

  async setStatus(threadKey: ThreadKey, text: string): Promise<void> {
    this.status.set(parseSlackThreadKey(threadKey), text);
  }

  /** A new message in the channel (`slack:<team>:<channel>`); its ts names the thread opened on it. */
  async openThread(channel: ChannelKey, text: string): Promise<ThreadKey> {
    const [, team = '', channelId = ''] = channel.split(':');
    // Replies name the thread by the workspace events come from: a key with another team would never match.
    const installed = (await this.app.client.auth.test()).team_id;
    if (installed && installed !== team) {
      throw new Error(`${channel} names workspace ${team}, but tally's Slack app is installed in ${installed}`);
    }
    const ts = await this.queue.run(
      channelId,
      async () => (await this.app.client.chat.postMessage({ channel: channelId, text: toMrkdwn(text) })).ts,
    );
    if (!ts) throw new Error(`Slack returned no message for ${channel}`);
    const threadKey = slackThreadKey({ team, channel: channelId, threadTs: ts });
    this.threads.add(threadKey);
    return threadKey;
  }

  /** The configured user groups `userId` is in (the channel does not matter in Slack); none when none are configured. */
  async groupsOf(userId: string): Promise<string[]> {
    return (await this.usergroups?.groupsOf(userId)) ?? [];
  }

  private deliver(delivered: Inbound): void {
    const handler = this.handler;
    if (!handler) return;
    // Slack hears "received" once tally has written the message down.
    const received = this.takeAck();
    const inbound = received ? { ...delivered, received } : delivered;
    const hand = (ready: Inbound) =>
      handler(ready).catch((error: unknown) => this.options.logger.error({ err: error }, 'inbound message failed'));
    if (!this.usergroups) {
      hand(inbound);
      return;
    }
    // Read at once, handed over in turn: a message never overtakes an earlier one whose groups took longer.
    const groups = this.usergroups.groupsOf(inbound.user.id);
    this.arrivals = this.arrivals
      .then(async () => {
        hand({ ...inbound, user: { ...inbound.user, groups: await groups } });
      })
      .catch((error: unknown) => this.options.logger.error({ err: error }, 'inbound message failed'));
  }

  private allowed(channel: string, user: string): boolean {
    const { allowedChannels, allowedUsers } = this.options;
    const channelOk = !allowedChannels?.length || allowedChannels.includes(channel) || channel.startsWith('D');
    const userOk = !allowedUsers?.length || allowedUsers.includes(user);
    return channelOk && userOk;
  }

  private async refuse(channel: string, user: string, threadTs: string | undefined): Promise<void> {
    const text =
      this.options.allowedUsers?.length && !this.options.allowedUsers.includes(user)
        ? 'Sorry, tally is not enabled for you. Ask the people who run it to add you.'
        : 'Sorry, tally is not enabled in this channel. Ask the people who run it to add the channel, or use a channel where it works.';
    await this.app.client.chat
      .postEphemeral({ channel, user, text, ...(threadTs ? { thread_ts: threadTs } : {}) })
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'could not explain a refusal'));
  }
}
