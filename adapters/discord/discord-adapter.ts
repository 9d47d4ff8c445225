/**
 * Discord as a chat platform, on discord.js v14 over the gateway. A session lives in a thread:
 * `/analyze` (or a mention in a channel) starts one; replies in it continue it. Posts go to the
 * thread through a per-channel queue (in order; discord.js's REST queue handles rate limits). A turn's
 * progress is one message edited in place (discord-progress.ts); other status is the typing
 * indicator plus one edited status message, or a line of the running turn's progress message.
 * Messages, edits, clicks, forms, reactions and option suggestions become inbound messages (see
 * discord-listeners.ts), each with the person's role ids and where it happened; `groupsOf` asks
 * Discord for a member's roles when no message carries them (scheduled runs).
 */
import {
  Client,
  DiscordAPIError,
  GatewayIntentBits,
  type Interaction,
  MessageFlags,
  Partials,
  RESTJSONErrorCodes,
  type SendableChannels,
  Status,
} from 'discord.js';
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
import { OpenPosts } from '../common/open-posts.js';
import { type PostMemory, RememberedPosts } from '../common/remembered-posts.js';
import { DiscordAutocomplete } from './discord-autocomplete.js';
import { SLASH_COMMANDS } from './discord-commands.js';
import { registerDiscordListeners } from './discord-listeners.js';
import { messageOptions } from './discord-message-options.js';
import { DiscordProgress, type OpenProgress } from './discord-progress.js';
import { leftOpenText } from './discord-progress-text.js';
import { type DiscordOp, type Remembered, renderForDiscord } from './discord-render.js';
import { DiscordStatus } from './discord-status.js';
import { discordThreadKey, parseDiscordChannelKey, parseDiscordThreadKey } from './discord-thread-key.js';

export interface DiscordAdapterOptions {
  token: string;
  /** Register the slash commands in this guild (instant); global otherwise (can take an hour to appear). */
  guildId?: string;
  /** REST base URL. Default Discord's; tests point it at a stand-in. */
  apiUrl?: string;
  /** Guild ids tally works in; empty or absent: all it is in. */
  allowedGuilds?: string[];
  /** Channel ids tally works in (threads count by their parent); empty or absent: all. */
  allowedChannels?: string[];
  /** Role ids whose members may decide in any thread, besides its owner. */
  reviewerRoles?: string[];
  /** Threads tally takes part in beyond those started since start-up (sessions in the store). */
  isKnownThread?: (threadKey: ThreadKey) => Promise<boolean>;
  /** REST retries on 5xx and network errors. Default 3. */
  retries?: number;
  /** Coalesces status changes of a thread to at most one per this. Default 1000 ms. */
  statusIntervalMs?: number;
  /** Least time between two edits of a turn's progress message. Default 1000 ms. */
  progressIntervalMs?: number;
  /** Keeps what review and approval posts are, so reactions and Edit work after a restart. */
  memory?: PostMemory;
  /** A person's sessions, starter prompts and default settings (home surfaces, autocomplete). */
  directory?: TallyDirectory;
  logger: Logger;
}

/** Interactions stay answerable for 15 minutes; ephemeral notices use them for a little less. */
const INTERACTION_TTL_MS = 14 * 60_000;

/** What Discord answers for a member, user or guild that is not there: no roles, rather than a failure. */
const UNKNOWN_MEMBER_CODES = new Set<unknown>([
  RESTJSONErrorCodes.UnknownMember,
  RESTJSONErrorCodes.UnknownUser,
  RESTJSONErrorCodes.UnknownGuild,
]);

export class DiscordAdapter implements ChatAdapter {
  readonly client: Client;
  private handler: ((inbound: Inbound) => Promise<void>) | undefined;
  private readonly queue = new ChannelQueue({ minIntervalMs: 0, isTransient: () => false });
  private readonly status: DiscordStatus;
  private readonly progress: DiscordProgress;
  private readonly threads = new Set<ThreadKey>();
  private readonly posted: RememberedPosts<Remembered & { threadKey: string }>;
  private readonly interactions = new Map<string, { interaction: Interaction; at: number }>();

  constructor(private readonly options: DiscordAdapterOptions) {
    this.client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.GuildMessageReactions,
        GatewayIntentBits.MessageContent,
      ],
      partials: [Partials.Message, Partials.Channel, Partials.Reaction],
      rest: { ...(options.apiUrl ? { api: options.apiUrl } : {}), retries: options.retries ?? 3 },
    });
    this.posted = new RememberedPosts('discord', options.memory);
    this.status = new DiscordStatus(
      (threadId) => this.channel(threadId),
      options.statusIntervalMs ?? 1000,
      options.logger,
    );
    this.progress = new DiscordProgress({
      transport: {
        inOrder: (threadId, task) => this.queue.run(threadId, task),
        send: async (threadId, content) =>
          (await (await this.channel(threadId)).send({ content, allowedMentions: { parse: [] } })).id,
        edit: async (threadId, messageId, content) => {
          const channel = await this.channel(threadId);
          await channel.messages.edit(messageId, { content, allowedMentions: { parse: [] } });
        },
        typing: async (threadId) => (await this.channel(threadId)).sendTyping(),
        stopLeftOpen: async (threadId, messageId) => {
          const channel = await this.channel(threadId);
          const message = await channel.messages.fetch(messageId);
          await channel.messages.edit(messageId, {
            content: leftOpenText(message.content),
            allowedMentions: { parse: [] },
          });
        },
      },
      open: new OpenPosts<OpenProgress>(options.memory, options.logger),
      ...(options.progressIntervalMs === undefined ? {} : { intervalMs: options.progressIntervalMs }),
      logger: options.logger,
    });
    const autocomplete = new DiscordAutocomplete({ directory: options.directory });
    registerDiscordListeners({
      client: this.client,
      deliver: (inbound) => this.deliver(inbound),
      isKnownThread: async (threadKey) =>
        this.threads.has(threadKey) || ((await options.isKnownThread?.(threadKey)) ?? false),
      markThread: (threadKey) => this.threads.add(threadKey),
      remembered: async (messageId, channelId) => {
        await this.queue.drained(channelId);
        return this.posted.recall(messageId);
      },
      keepInteraction: (threadKey, userId, interaction) =>
        this.interactions.set(`${threadKey}:${userId}`, { interaction, at: Date.now() }),
      allowed: (guildId, channelId) =>
        (!options.allowedGuilds?.length || options.allowedGuilds.includes(guildId)) &&
        (!options.allowedChannels?.length || options.allowedChannels.includes(channelId)),
      isReviewer: (roleIds) => roleIds.some((role) => options.reviewerRoles?.includes(role)),
      suggest: (command, focused, viewer) => autocomplete.choices(command, focused, viewer),
      question: (value, viewer) => autocomplete.question(value, viewer),
      logError: (error, message) => options.logger.error({ err: error }, message),
    });
  }

  onInbound(handler: (inbound: Inbound) => Promise<void>): void {
    this.handler = handler;
  }

  async start(): Promise<void> {
    const ready = new Promise<void>((resolve) => this.client.once('clientReady', () => resolve()));
    await this.client.login(this.options.token);
    await ready;
    const commands = this.client.application?.commands;
    if (this.options.guildId) await commands?.set(SLASH_COMMANDS, this.options.guildId);
    else await commands?.set(SLASH_COMMANDS);
  }

  /** Logged in, and every shard's gateway connection ready (not reconnecting or resuming). */
  isConnected(): boolean {
    return this.client.isReady() && this.client.ws.shards.every((shard) => shard.status === Status.Ready);
  }

  async stop(): Promise<void> {
    await this.progress.close();
    await this.status.close();
    await this.queue.idle();
    await this.client.destroy();
  }

  async post(threadKey: ThreadKey, post: Post): Promise<MessageRef> {
    const { threadId } = parseDiscordThreadKey(threadKey);
    let ref: MessageRef = { threadKey, id: '' };
    if (post.kind === 'progress') this.progress.show(threadId, post.progress, threadKey);
    else if (post.kind !== 'status') this.progress.note(threadId, undefined);
    for (const op of renderForDiscord(post)) {
      if (op.kind === 'status') {
        if (!this.progress.note(threadId, op.text)) this.status.set(threadId, op.text);
        continue;
      }
      if (op.kind === 'ephemeral') {
        await this.queue.run(threadId, () => this.notice(threadKey, op));
        continue;
      }
      // Remembered inside the thread's turn, so a click that waits for the thread finds it.
      const id = await this.queue.run(threadId, async () => {
        const sent = await this.send(threadId, op);
        if (op.remember) await this.posted.remember(sent, { ...op.remember, threadKey });
        return sent;
      });
      ref = { threadKey, id };
    }
    if (post.kind !== 'status') await this.status.settled(threadId);
    return ref;
  }

  async update(ref: MessageRef, post: Post): Promise<void> {
    const { threadId } = parseDiscordThreadKey(ref.threadKey);
    const first = renderForDiscord(post).find(
      (op): op is Extract<DiscordOp, { kind: 'message' }> => op.kind === 'message',
    );
    if (!first || !ref.id) {
      await this.post(ref.threadKey, post);
      return;
    }
    await this.queue.run(threadId, async () => {
      const channel = await this.channel(threadId);
      const message = await channel.messages.fetch(ref.id);
      await message.edit({ content: first.content || null });
    });
  }

  async setStatus(threadKey: ThreadKey, text: string): Promise<void> {
    const { threadId } = parseDiscordThreadKey(threadKey);
    if (!this.progress.note(threadId, text)) this.status.set(threadId, text);
  }

  /** A message in the channel (`discord:<guild>:<channel>`) and a thread opened on it, as `/analyze` does. */
  async openThread(channel: ChannelKey, text: string): Promise<ThreadKey> {
    const [, guildId = '', channelId = ''] = channel.split(':');
    const thread = await this.queue.run(channelId, async () => {
      const parent = await this.client.channels.fetch(channelId);
      if (!parent?.isSendable() || parent.isThread() || parent.isDMBased())
        throw new Error(`Discord channel ${channelId} cannot hold threads`);
      const message = await parent.send({ content: text.slice(0, 2000), allowedMentions: { parse: [] } });
      const name = text.replace(/\s+/g, ' ').trim().slice(0, 90) || 'tally';
      return message.startThread({ name, autoArchiveDuration: 1440 });
    });
    const threadKey = discordThreadKey(guildId, thread.id);
    this.threads.add(threadKey);
    return threadKey;
  }

  /**
   * The role ids (without @everyone) of `userId` in the guild of `channel` (`discord:<guild>:<channel>`);
   * none for someone who is not a member (logged). Fetched from Discord every time: without the
   * privileged GuildMembers intent no member updates arrive, so a cached member's roles may be stale.
   */
  async groupsOf(userId: string, channel: ChannelKey): Promise<string[]> {
    const { guildId } = parseDiscordChannelKey(channel);
    try {
      const guild = await this.client.guilds.fetch(guildId);
      const member = await guild.members.fetch({ user: userId, force: true });
      return [...member.roles.cache.keys()].filter((id) => id !== guild.id);
    } catch (error) {
      if (!(error instanceof DiscordAPIError) || !UNKNOWN_MEMBER_CODES.has(error.code)) throw error;
      this.options.logger.warn({ userId, guildId, code: error.code }, 'discord member unknown: no roles');
      return [];
    }
  }

  private async channel(id: string): Promise<
    SendableChannels & {
      messages: {
        fetch(id: string): Promise<{ edit(options: unknown): Promise<unknown> }>;
        edit(id: string, options: unknown): Promise<unknown>;
      };
    }
  > {
    const channel = await this.client.channels.fetch(id);
    if (!channel?.isSendable() || !('messages' in channel))
      throw new Error(`Discord channel ${id} cannot be posted to`);
    return channel as never;
  }

  private async send(threadId: string, op: Extract<DiscordOp, { kind: 'message' }>): Promise<string> {
    const channel = await this.channel(threadId);
    return (await channel.send(messageOptions(op))).id;
  }

  /** Only for one person: a follow-up to their latest interaction in the thread, else a reply naming them. */
  private async notice(threadKey: ThreadKey, op: Extract<DiscordOp, { kind: 'ephemeral' }>): Promise<void> {
    const kept = this.interactions.get(`${threadKey}:${op.user}`);
    if (kept && Date.now() - kept.at < INTERACTION_TTL_MS && kept.interaction.isRepliable()) {
      await kept.interaction.followUp({ content: op.content, flags: MessageFlags.Ephemeral });
      return;
    }
    const channel = await this.channel(parseDiscordThreadKey(threadKey).threadId);
    await channel.send({ content: `<@${op.user}> ${op.content}`, allowedMentions: { users: [op.user] } });
  }

  private deliver(inbound: Inbound): void {
    const handler = this.handler;
    if (!handler) return;
    handler(inbound).catch((error: unknown) => this.options.logger.error({ err: error }, 'inbound message failed'));
  }
}
