/**
 * The Discord stand-in: one local HTTP + WebSocket server that plays Discord for the unmodified
 * discord.js v14 `Client`. It serves the REST API at `apiUrl` (`/api/v10/...`), the gateway that
 * `GET /gateway/bot` points to, and attachment downloads; keeps the guild's state; lets tests act as
 * users (write, mention, react, run slash commands, click, submit modals) and fault the API.
 *
 * Used by tests only: no test-framework imports here.
 *
 * ```ts
 * const discord = await startDiscordStandIn();
 * const client = new Client({ intents, partials, rest: { api: discord.apiUrl, retries: 0, timeout: 5000 } });
 * await client.login(discord.token);
 * await discord.connected();
 * const id = await discord.message({ user: ALICE, channel: discord.channelId, content: 'rows?', mentionsBot: true });
 * await discord.waitFor(() => discord.messages(discord.channelId).find((m) => m.author.bot));
 * await client.destroy(); await discord.close();
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Truthy, waitForProbe } from '../wait-for.js';
import { serveAttachment } from './cdn.js';
import {
  DEFAULT_DISCORD_IDS,
  type DiscordCall,
  type DiscordChannel,
  type DiscordIds,
  type DiscordInteraction,
  type DiscordInteractionResponse,
  type DiscordMessage,
  type Json,
} from './discord-model.js';
import { DiscordState } from './discord-state.js';
import { GatewayServer, type GatewayStats } from './gateway.js';
import { type DiscordFault, RestApi } from './rest-api.js';
import type { RestContext } from './rest-context.js';
import { type RoutePattern, routeMatches } from './rest-routes.js';
import * as actions from './user-actions.js';
import * as interactions from './user-interactions.js';

export type { Truthy };

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
  /** IDENTIFY, RESUME and heartbeat counts, and the last sequence number sent. */
  readonly gateway: Readonly<GatewayStats>;
  /** Sends any dispatch (filtered by the session's intents). */
  dispatch(type: string, data: Json): Promise<void>;

  /** A user's message in a channel or thread: MESSAGE_CREATE. Resolves with the message id. */
  message(input: actions.UserMessageInput): Promise<string>;
  /** A registered slash command: INTERACTION_CREATE type 2. */
  slashCommand(input: {
    user: string;
    channel: string;
    name: string;
    options?: Record<string, string | number | boolean>;
  }): Promise<interactions.InteractionHandle>;
  /** A click on a component of a message (`values` for selects): INTERACTION_CREATE type 3 with the `message`. */
  click(input: {
    user: string;
    channel: string;
    messageId: string;
    customId: string;
    values?: string[];
  }): Promise<interactions.InteractionHandle>;
  /** Submits a modal the bot showed `user`: INTERACTION_CREATE type 5 in the modal's layout. */
  submitModal(input: {
    user: string;
    channel: string;
    customId: string;
    fields: Record<string, string>;
  }): Promise<interactions.InteractionHandle>;
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

export async function startDiscordStandIn(options: DiscordStandInOptions = {}): Promise<DiscordStandIn> {
  const ids: DiscordIds = { ...DEFAULT_DISCORD_IDS, ...options.ids };
  const token = options.token ?? `${Buffer.from(ids.botUserId).toString('base64url')}.stand-in.bot-token`;
  const state = new DiscordState(ids);
  seed(state, options);
  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`Discord stand-in failed: ${String(error)}`);
      } else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const gatewayUrl = `ws://127.0.0.1:${port}/gateway`;
  const gateway = new GatewayServer({
    state,
    token,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    url: gatewayUrl,
  });
  server.on('upgrade', (request, duplex, head) => {
    if ((request.url ?? '').startsWith('/gateway')) gateway.handleUpgrade(request, duplex, head);
    else duplex.destroy();
  });

  const echo = options.echoBotEvents ?? true;
  const context: RestContext = {
    state,
    baseUrl: url,
    gatewayUrl,
    limits: {
      initialResponseMs: options.initialResponseMs ?? 3000,
      interactionTokenTtlMs: options.interactionTokenTtlMs ?? 15 * 60 * 1000,
      attachmentSizeLimitBytes: options.attachmentSizeLimitBytes ?? 10 * 1024 * 1024,
    },
    // After the HTTP reply, as on Discord; dropped when no client ever connected.
    emit: (type, data) => {
      if (echo) setImmediate(() => gateway.dispatch(type, data).catch(() => undefined));
    },
  };
  const restApi = new RestApi(token, context);
  const actionContext: actions.UserActionContext = { state, gateway, baseUrl: url };

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith('/api/')) return restApi.handle(request, response);
    if (path.startsWith('/attachments/')) return serveAttachment(request, response, state);
    const text = `Discord stand-in: no route for ${request.method} ${path}`;
    response.writeHead(404, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  }

  const waitFor = <T>(probe: () => T, timeoutMs = 5000) =>
    waitForProbe(state, probe, timeoutMs, () => {
      const recent = state.calls
        .slice(-12)
        .map((call) => `${call.method} ${call.route} -> ${call.status}${call.code ? ` (${call.code})` : ''}`);
      return `Discord stand-in's last REST calls: ${recent.join(', ') || 'none'}`;
    });
  const callsTo = (method: string, pattern: RoutePattern) =>
    state.calls.filter(
      (call) => call.method === method.toUpperCase() && routeMatches(pattern, call.method, call.route),
    );

  return {
    apiUrl: `${url}/api`,
    url,
    gatewayUrl,
    token,
    ids,
    channelId: [...state.channels.keys()][0] ?? '',
    calls: state.calls,
    callsTo,
    failNext: (pattern, fault) => restApi.failNext(pattern, fault),
    connected: () => gateway.connected(),
    requestReconnect: () => gateway.requestReconnect(),
    invalidateSession: (resumable = false) => gateway.invalidateSession(resumable),
    gateway: gateway.stats,
    dispatch: (type, data) => gateway.dispatch(type, data),
    message: (input) => actions.postUserMessage(actionContext, input),
    slashCommand: (input) => interactions.runSlashCommand(actionContext, input),
    click: (input) => interactions.clickComponent(actionContext, input),
    submitModal: (input) => interactions.submitShownModal(actionContext, input),
    react: (input) => actions.addUserReaction(actionContext, input),
    unreact: (input) => actions.removeUserReaction(actionContext, input),
    setRoles: (user, roleIds) => state.setMemberRoles(user, roleIds),
    addRole: async (input) => {
      const role = state.addRole(input);
      const wire = { ...role, color: 0, hoist: false, managed: false, mentionable: false, flags: 0 };
      if (gateway.isConnected()) await gateway.dispatch('GUILD_ROLE_CREATE', { guild_id: ids.guildId, role: wire });
      return role.id;
    },
    messages: (channelId) => state.channelMessages(channelId),
    findMessage: (id) => state.findMessage(id),
    threads: () => state.threads(),
    interactions: () => [...state.interactions.values()],
    interactionResponses: (id) => state.interactions.get(id)?.responses ?? [],
    commands: (scope) =>
      scope === undefined ? [...state.commands.values()].flat() : (state.commands.get(scope) ?? []),
    typing: (channelId) => [...(state.typing.get(channelId) ?? [])],
    ephemerals: (user) => state.ephemerals.filter((message) => user === undefined || message.ephemeralFor === user),
    waitFor,
    waitForCall: (method, pattern, predicate = (call) => call.status >= 200 && call.status < 300, timeoutMs = 5000) =>
      waitFor(() => callsTo(method, pattern).find(predicate), timeoutMs),
    close: async () => {
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** Channels, roles and users from the options. */
function seed(state: DiscordState, options: DiscordStandInOptions): void {
  for (const channel of options.channels ?? [{ id: '1300000000000000010', name: 'general' }]) {
    state.addTextChannel(channel);
  }
  for (const role of options.roles ?? []) state.addRole(role);
  for (const user of options.users ?? []) {
    state.ensureUser(user.id, user.username);
    state.setMemberRoles(user.id, user.roles ?? []);
  }
}
