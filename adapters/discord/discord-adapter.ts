/**
 * Discord as a chat platform, on discord.js v14 over the gateway. A session lives in a thread:
 * `/analyze` (or a mention in a channel) starts one; replies in it continue it. Posts go to the
 * thread through a per-channel queue (in order; discord.js's REST queue handles rate limits), the
 * status is the typing indicator plus one edited status message, and clicks, forms and reactions
 * become actions (see discord-listeners.ts).
 */
import {
  ActionRowBuilder,
  AttachmentBuilder,
  ButtonBuilder,
  ButtonStyle,
  Client,
  GatewayIntentBits,
  type Interaction,
  MessageFlags,
  Partials,
  type SendableChannels,
} from 'discord.js';
import type { Logger } from '../../src/logger.js';
import type { ChatAdapter, Inbound, MessageRef, Post, ThreadKey } from '../../src/ports/chat.js';
import { ChannelQueue } from '../common/channel-queue.js';
import { type PostMemory, RememberedPosts } from '../common/remembered-posts.js';
import { SLASH_COMMANDS } from './discord-commands.js';
import { registerDiscordListeners } from './discord-listeners.js';
import { type DiscordButton, type DiscordOp, type Remembered, renderForDiscord } from './discord-render.js';
import { DiscordStatus } from './discord-status.js';
import { parseDiscordThreadKey } from './discord-thread-key.js';

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
  /** Keeps what review and approval posts are, so reactions and Edit work after a restart. */
  memory?: PostMemory;
  logger: Logger;
}

const STYLES: Record<DiscordButton['style'], ButtonStyle> = {
  primary: ButtonStyle.Primary,
  secondary: ButtonStyle.Secondary,
  success: ButtonStyle.Success,
  danger: ButtonStyle.Danger,
};

/** Interactions stay answerable for 15 minutes; ephemeral notices use them for a little less. */
const INTERACTION_TTL_MS = 14 * 60_000;

export class DiscordAdapter implements ChatAdapter {
  readonly client: Client;
  private handler: ((inbound: Inbound) => Promise<void>) | undefined;
  private readonly queue = new ChannelQueue({ minIntervalMs: 0, isTransient: () => false });
  private readonly status: DiscordStatus;
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

  async stop(): Promise<void> {
    await this.status.close();
    await this.queue.idle();
    await this.client.destroy();
  }

  async post(threadKey: ThreadKey, post: Post): Promise<MessageRef> {
    const { threadId } = parseDiscordThreadKey(threadKey);
    let ref: MessageRef = { threadKey, id: '' };
    for (const op of renderForDiscord(post)) {
      if (op.kind === 'status') {
        this.status.set(threadId, op.text);
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
    this.status.set(parseDiscordThreadKey(threadKey).threadId, text);
  }

  private async channel(
    id: string,
  ): Promise<
    SendableChannels & { messages: { fetch(id: string): Promise<{ edit(options: unknown): Promise<unknown> }> } }
  > {
    const channel = await this.client.channels.fetch(id);
    if (!channel?.isSendable() || !('messages' in channel))
      throw new Error(`Discord channel ${id} cannot be posted to`);
    return channel as never;
  }

  private async send(threadId: string, op: Extract<DiscordOp, { kind: 'message' }>): Promise<string> {
    const channel = await this.channel(threadId);
    const files = (op.files ?? []).map(
      (file) =>
        new AttachmentBuilder(file.content, {
          name: file.name,
          ...(file.description ? { description: file.description } : {}),
        }),
    );
    const components = op.buttons?.length
      ? [
          new ActionRowBuilder<ButtonBuilder>().addComponents(
            op.buttons
              .slice(0, 5)
              .map((button) =>
                new ButtonBuilder().setCustomId(button.customId).setLabel(button.label).setStyle(STYLES[button.style]),
              ),
          ),
        ]
      : [];
    const message = await channel.send({
      ...(op.content ? { content: op.content } : {}),
      ...(files.length > 0 ? { files } : {}),
      ...(components.length > 0 ? { components } : {}),
      allowedMentions: { parse: [] },
    });
    return message.id;
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
