/**
 * What the Slack stand-in remembers: channels, messages (with threads, files and reactions),
 * ephemeral messages, uploaded files, opened views and Home tabs, assistant threads, user groups,
 * trigger ids, response_url posts and every Web API call. Plain data plus the few rules Slack applies to it
 * (unique `ts`, one-shot trigger ids); the HTTP and WebSocket sides read and write it, tests read it
 * through `SlackStandIn`.
 */
import { randomBytes } from 'node:crypto';

/** The ids of the one workspace, app and bot the stand-in plays. */
export interface SlackIds {
  teamId: string;
  teamDomain: string;
  appId: string;
  /** The bot user (`auth.test` `user_id`), named in `<@…>` mentions. */
  botUserId: string;
  /** The bot (`auth.test` `bot_id`), carried as `bot_id` on the bot's messages. */
  botId: string;
  botName: string;
}

export const DEFAULT_SLACK_IDS: SlackIds = {
  teamId: 'T0TALLY',
  teamDomain: 'tally-test',
  appId: 'A0TALLY',
  botUserId: 'UBOT',
  botId: 'BBOT',
  botName: 'tally',
};

/** A JSON object as it goes over the wire. */
export type Json = Record<string, unknown>;

export interface SlackChannel {
  id: string;
  name: string;
  /** A direct-message channel (`D…`) between `user` and the bot. */
  isIm: boolean;
  user?: string;
}

export interface SlackReaction {
  name: string;
  users: string[];
  count: number;
}

/** A message as Slack returns it from `conversations.replies` (plus `channel`). */
export interface SlackMessage {
  type: 'message';
  channel: string;
  ts: string;
  text: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  subtype?: string;
  thread_ts?: string;
  parent_user_id?: string;
  blocks?: unknown[];
  /** Wire file objects (see `fileObject`). */
  files?: Json[];
  reactions?: SlackReaction[];
  metadata?: unknown;
  edited?: { user: string; ts: string };
  [key: string]: unknown;
}

export interface SlackEphemeral {
  channel: string;
  /** Who sees it. */
  user: string;
  text: string;
  blocks?: unknown[];
  threadTs?: string;
  messageTs: string;
  /** `chat.postEphemeral` or `response_url`. */
  via: 'chat.postEphemeral' | 'response_url';
}

export interface SlackFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  altText?: string;
  /** Who uploaded it: the bot user for `files.uploadV2`, the user for `shareFile`. */
  user: string;
  /** Unset until the upload URL received the bytes. */
  bytes?: Buffer;
  /** Channels it was shared to (empty for a private upload). */
  channels: string[];
  threadTs?: string;
  created: number;
}

export interface SlackView {
  id: string;
  /** Whose screen it is on. */
  user: string;
  triggerId: string;
  /** The view as Slack returns it: the posted view plus `id`, `team_id`, `app_id`, `state`, `hash`. */
  view: Json;
  open: boolean;
}

/** What the app set on an assistant thread (`assistant.threads.setTitle` / `.setSuggestedPrompts`). */
export interface SlackAssistantThread {
  channel: string;
  threadTs: string;
  title?: string;
  prompts?: Array<{ title: string; message: string }>;
  promptsTitle?: string;
}

/** A streamed message (`chat.startStream`): its chunks in arrival order, with the call that carried each. */
export interface SlackStreamRecord {
  channel: string;
  /** The streamed message's ts (the message is in the thread like any other). */
  ts: string;
  threadTs: string;
  recipientUserId?: string;
  recipientTeamId?: string;
  displayMode: 'timeline' | 'plan';
  state: 'streaming' | 'stopped';
  chunks: Array<{ method: string; chunk: Json }>;
}

/** A POST to a `response_url` (from `respond()` in Bolt). */
export interface SlackResponse {
  url: string;
  body: Json;
  at: number;
}

/** One Web API call as the stand-in received it. */
export interface SlackCall {
  method: string;
  /** Form fields, with JSON-string fields (`blocks`, `view`, `files`, …) parsed; `token` removed. */
  args: Json;
  /** `Date.now()` on arrival, in milliseconds. */
  at: number;
  /** The bearer token (or the `token` field) the call carried. */
  token: string | undefined;
  /** What the stand-in answered: `ok`, the `{ok:false}` error, or `http <status>` for a fault. */
  outcome: string;
}

interface Trigger {
  user: string;
  issuedAt: number;
  used: boolean;
}

export type TriggerCheck = 'ok' | 'invalid_trigger_id' | 'expired_trigger_id' | 'exchanged_trigger_id';

export class SlackState {
  readonly channels = new Map<string, SlackChannel>();
  readonly files = new Map<string, SlackFile>();
  readonly views = new Map<string, SlackView>();
  /** Each user's published Home tab (`views.publish`), by user id. */
  readonly homeViews = new Map<string, SlackView>();
  /** Assistant threads by `<channel>:<thread ts>`. */
  readonly assistantThreads = new Map<string, SlackAssistantThread>();
  /** Streamed messages by `<channel>:<ts>`. */
  readonly streams = new Map<string, SlackStreamRecord>();
  /** Members of each user group (`usergroups.users.list`), by group id (`S…`). */
  readonly usergroups = new Map<string, string[]>();
  readonly ephemerals: SlackEphemeral[] = [];
  readonly responses: SlackResponse[] = [];
  readonly calls: SlackCall[] = [];
  private readonly messagesByChannel = new Map<string, SlackMessage[]>();
  private readonly triggers = new Map<string, Trigger>();
  private readonly listeners = new Set<() => void>();
  private lastTsMicros = 0;
  private counter = 0;

  constructor(
    readonly ids: SlackIds,
    private readonly triggerTtlMs: number,
  ) {}

  /** A message timestamp: `"<seconds>.<6 digits>"`, strictly increasing. */
  nextTs(): string {
    const micros = Math.max(Date.now() * 1000, this.lastTsMicros + 1);
    this.lastTsMicros = micros;
    return `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`;
  }

  /** A Slack-looking id such as `F00000007`. */
  nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}${String(this.counter).padStart(8, '0')}`;
  }

  ensureChannel(id: string, name = id.toLowerCase()): SlackChannel {
    const existing = this.channels.get(id);
    if (existing) return existing;
    const channel: SlackChannel = { id, name, isIm: id.startsWith('D') };
    this.channels.set(id, channel);
    this.messagesByChannel.set(id, []);
    return channel;
  }

  /** The bot's direct-message channel with `user`, created on first use. */
  imChannel(user: string): SlackChannel {
    const id = `D${user.replace(/^[UW]/, '')}`;
    const channel = this.ensureChannel(id, user);
    channel.isIm = true;
    channel.user = user;
    return channel;
  }

  /** `channel` for Events API payloads: `im`, `group` (private `G…`) or `channel`. */
  channelType(channelId: string): 'im' | 'group' | 'channel' {
    if (this.channels.get(channelId)?.isIm) return 'im';
    return channelId.startsWith('G') ? 'group' : 'channel';
  }

  addMessage(message: SlackMessage): SlackMessage {
    this.ensureChannel(message.channel);
    this.messagesByChannel.get(message.channel)?.push(message);
    this.changed();
    return message;
  }

  removeMessage(channel: string, ts: string): void {
    const list = this.messagesByChannel.get(channel) ?? [];
    const index = list.findIndex((message) => message.ts === ts);
    if (index >= 0) list.splice(index, 1);
    this.changed();
  }

  findMessage(channel: string, ts: string): SlackMessage | undefined {
    return this.messagesByChannel.get(channel)?.find((message) => message.ts === ts);
  }

  /** Every message of the channel, thread replies included, oldest first. */
  channelMessages(channel: string): SlackMessage[] {
    return [...(this.messagesByChannel.get(channel) ?? [])];
  }

  /** The parent and its replies, oldest first (what `conversations.replies` returns). */
  threadMessages(channel: string, threadTs: string): SlackMessage[] {
    return this.channelMessages(channel).filter((message) => message.ts === threadTs || message.thread_ts === threadTs);
  }

  /** Adds `user`'s reaction; false when they already reacted with that name. */
  addReaction(message: SlackMessage, name: string, user: string): boolean {
    message.reactions ??= [];
    let reaction = message.reactions.find((candidate) => candidate.name === name);
    if (!reaction) {
      reaction = { name, users: [], count: 0 };
      message.reactions.push(reaction);
    }
    if (reaction.users.includes(user)) return false;
    reaction.users.push(user);
    reaction.count = reaction.users.length;
    this.changed();
    return true;
  }

  /** Removes `user`'s reaction; false when there was none. */
  removeReaction(message: SlackMessage, name: string, user: string): boolean {
    const reaction = message.reactions?.find((candidate) => candidate.name === name);
    if (!reaction?.users.includes(user)) return false;
    reaction.users = reaction.users.filter((candidate) => candidate !== user);
    reaction.count = reaction.users.length;
    if (reaction.count === 0)
      message.reactions = (message.reactions ?? []).filter((candidate) => candidate !== reaction);
    this.changed();
    return true;
  }

  issueTrigger(user: string): string {
    const id = `${Date.now()}.${this.counter + 1}.${randomBytes(8).toString('hex')}`;
    this.counter += 1;
    this.triggers.set(id, { user, issuedAt: Date.now(), used: false });
    return id;
  }

  /** Uses up a trigger id; Slack accepts each one once, within about 3 seconds. */
  useTrigger(id: string): TriggerCheck {
    const trigger = this.triggers.get(id);
    if (!trigger) return 'invalid_trigger_id';
    if (trigger.used) return 'exchanged_trigger_id';
    if (Date.now() - trigger.issuedAt > this.triggerTtlMs) return 'expired_trigger_id';
    trigger.used = true;
    return 'ok';
  }

  triggerUser(id: string): string | undefined {
    return this.triggers.get(id)?.user;
  }

  /** Tells `waitFor` to look again; call after every change. */
  changed(): void {
    for (const listener of this.listeners) listener();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
