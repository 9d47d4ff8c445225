/**
 * The Discord stand-in: one local HTTP + WebSocket server that plays Discord for the unmodified
 * discord.js v14 `Client`. It serves the REST API at `apiUrl` (`/api/v10/...`), the gateway that
 * `GET /gateway/bot` points to, and attachment downloads; keeps the guild's state; lets tests act as
 * users (write and edit, mention, react, run slash commands, type into options that autocomplete, click,
 * submit modals) and fault the API.
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
import { DEFAULT_DISCORD_IDS, type DiscordIds } from './discord-model.js';
import { DiscordState } from './discord-state.js';
import { GatewayServer } from './gateway.js';
import { RestApi } from './rest-api.js';
import type { RestContext } from './rest-context.js';
import { type RoutePattern, routeMatches } from './rest-routes.js';
import type { DiscordStandIn, DiscordStandInOptions } from './stand-in-api.js';
import * as actions from './user-actions.js';
import { typeIntoOption } from './user-autocomplete.js';
import * as interactions from './user-interactions.js';

export type { DiscordStandIn, DiscordStandInOptions } from './stand-in-api.js';
export type { Truthy };

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
    holdHello: () => gateway.holdHello(),
    releaseHello: () => gateway.releaseHello(),
    gateway: gateway.stats,
    dispatch: (type, data) => gateway.dispatch(type, data),
    message: (input) => actions.postUserMessage(actionContext, input),
    editMessage: (input) => actions.editUserMessage(actionContext, input),
    autocomplete: (input) => typeIntoOption(actionContext, input),
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
    edits: (messageId) => [...(state.edits.get(messageId) ?? [])],
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
