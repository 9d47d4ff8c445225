/**
 * The Discord stand-in's public face: the options it starts with and what tests can do with it (act
 * as people, fault the API, read back what the bot did). `startDiscordStandIn()` in
 * discord-stand-in.ts builds it.
 */
import type { Truthy } from '../wait-for.js';
import type {
  DiscordCall,
  DiscordChannel,
  DiscordIds,
  DiscordInteraction,
  DiscordInteractionResponse,
  DiscordMessage,
  Json,
} from './discord-model.js';
import type { GatewayStats } from './gateway.js';
import type { DiscordFault } from './rest-api.js';
import type { RoutePattern } from './rest-routes.js';
import type { UserMessageInput } from './user-actions.js';
import type { AutocompleteInput } from './user-autocomplete.js';
import type { InteractionHandle } from './user-interactions.js';

export interface DiscordStandInOptions {
  /** The bot token REST (`Authorization: Bot <token>`) and IDENTIFY accept; anything else gets 401 / close 4004. */
  token?: string;
  /** Override guild, application and bot ids; defaults in `DEFAULT_DISCORD_IDS`. */
  ids?: Partial<DiscordIds>;
  /** Text channels (type 0) that exist from the start; default one, `general`. */
  channels?: Array<{ id?: string; name: string }>;
  /** Roles besides @everyone; `permissions` is a decimal bit set (default `'0'`). */
  roles?: Array<{ id?: string; name: string; permissions?: string }>;
  /** Known users (members of the guild); others are made up on first use. `roles` are role ids. */
  users?: Array<{ id: string; username?: string; roles?: string[] }>;
  /** HELLO's `heartbeat_interval`, in milliseconds; default 41250 (Discord's). */
  heartbeatIntervalMs?: number;
  /** How long after INTERACTION_CREATE the initial callback is accepted, in milliseconds; default 3000. */
  initialResponseMs?: number;
  /** How long an interaction token works for `editReply`/`followUp`, in milliseconds; default 15 minutes. */
  interactionTokenTtlMs?: number;
  /** The largest attachment accepted, in bytes (413 above); default 10 MiB. */
  attachmentSizeLimitBytes?: number;
  /** Echo the bot's own messages, edits, reactions and threads as gateway events, as Discord does. Default true. */
  echoBotEvents?: boolean;
}

export interface DiscordStandIn {
  /** `http://127.0.0.1:<port>/api`, for `new Client({ rest: { api } })`. */
  readonly apiUrl: string;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `ws://127.0.0.1:<port>/gateway`, what `GET /gateway/bot` returns. */
  readonly gatewayUrl: string;
  readonly token: string;
  readonly ids: DiscordIds;
  /** The first text channel (`general` by default). */
  readonly channelId: string;
  /** Every REST call, in arrival order. */
  readonly calls: readonly DiscordCall[];
  /** Calls matching a method and a route pattern such as `/channels/:id/messages`. */
  callsTo(method: string, routePattern: RoutePattern): DiscordCall[];
  /** The next call matching `routePattern` (`'POST /channels/:id/messages'`, method optional) fails with `fault`. */
  failNext(routePattern: RoutePattern, fault: DiscordFault): void;

  /** Resolves once a client identified (READY + GUILD_CREATE sent) or resumed; at once if one is connected. */
  connected(): Promise<void>;
  /** Sends op 7 RECONNECT; resolves once the client resumed (RESUME → replay → RESUMED). */
  requestReconnect(): Promise<void>;
  /** Sends op 9 INVALID_SESSION; resolves once the client resumed (`resumable`) or identified again. */
  invalidateSession(resumable?: boolean): Promise<void>;
  /** Holds HELLO back from new gateway connections until `releaseHello` (the client stays "connecting"). */
  holdHello(): void;
  releaseHello(): void;
  /** IDENTIFY, RESUME and heartbeat counts, and the last sequence number sent. */
  readonly gateway: Readonly<GatewayStats>;
  /** Sends any dispatch (filtered by the session's intents). */
  dispatch(type: string, data: Json): Promise<void>;

  /** A user's message in a channel or thread: MESSAGE_CREATE. Resolves with the message id. */
  message(input: UserMessageInput): Promise<string>;
  /** The author edits their message: MESSAGE_UPDATE with the whole message and `edited_timestamp`. */
  editMessage(input: { user: string; channel: string; messageId: string; content: string }): Promise<void>;
  /**
   * Typing into an option that autocompletes: INTERACTION_CREATE type 4 with the option `focused`.
   * Read the answer (callback type 8, its `choices` and `at`) with `interactionResponses(id)`.
   */
  autocomplete(input: AutocompleteInput): Promise<InteractionHandle>;
  /** A registered slash command: INTERACTION_CREATE type 2. */
  slashCommand(input: {
    user: string;
    channel: string;
    name: string;
    options?: Record<string, string | number | boolean>;
  }): Promise<InteractionHandle>;
  /** A click on a component of a message (`values` for selects): INTERACTION_CREATE type 3 with the `message`. */
  click(input: {
    user: string;
    channel: string;
    messageId: string;
    customId: string;
    values?: string[];
  }): Promise<InteractionHandle>;
  /** Submits a modal the bot showed `user`: INTERACTION_CREATE type 5 in the modal's layout. */
  submitModal(input: {
    user: string;
    channel: string;
    customId: string;
    fields: Record<string, string>;
  }): Promise<InteractionHandle>;
  react(input: { user: string; channel: string; messageId: string; emoji: string }): Promise<void>;
  unreact(input: { user: string; channel: string; messageId: string; emoji: string }): Promise<void>;
  /** Replaces a member's roles (role ids); later events carry them in `member.roles`. */
  setRoles(user: string, roleIds: string[]): void;
  /** Adds a role; resolves with its id once GUILD_ROLE_CREATE went out (if a client is connected). */
  addRole(input: { id?: string; name: string; permissions?: string }): Promise<string>;

  /** A channel's or thread's messages (the bot's included), oldest first; ephemerals are in `ephemerals()`. */
  messages(channelId: string): DiscordMessage[];
  /** Any message by id, ephemeral ones included. */
  findMessage(id: string): DiscordMessage | undefined;
  /** Every edit of a message (the bot's PATCHes, interaction edits, the author's edits): when and what it said after. */
  edits(messageId: string): Array<{ at: number; content: string }>;
  threads(): DiscordChannel[];
  interactions(): DiscordInteraction[];
  /** What the bot did with an interaction: callbacks and webhook edits/follow-ups/deletes, refused ones included. */
  interactionResponses(id: string): DiscordInteractionResponse[];
  /** Registered application commands: a guild's (`scope` = guild id), global ones (`'global'`), or all. */
  commands(scope?: string): Json[];
  /** When the bot triggered typing in the channel (`Date.now()` values). */
  typing(channelId: string): number[];
  /** Ephemeral interaction replies and follow-ups, optionally only those `user` sees. */
  ephemerals(user?: string): DiscordMessage[];

  /**
   * Resolves with the probe's first truthy value, checked on every state change and every 20 ms;
   * rejects after `timeoutMs` (default 5000) listing the last REST calls.
   */
  waitFor<T>(probe: () => T, timeoutMs?: number): Promise<Truthy<T>>;
  /** The first call matching `method` + `routePattern` (and `predicate`, default: answered 2xx). */
  waitForCall(
    method: string,
    routePattern: RoutePattern,
    predicate?: (call: DiscordCall) => boolean,
    timeoutMs?: number,
  ): Promise<DiscordCall>;
  /** Closes the gateway sockets and the server. Destroy the discord.js client first, or it will try to resume. */
  close(): Promise<void>;
}
