/**
 * The Slack stand-in: one local HTTP + WebSocket server that plays Slack for the unmodified
 * `@slack/bolt` App. It serves the Web API at `apiUrl` (`POST /api/<method>`), hands out Socket
 * Mode connections through `apps.connections.open`, keeps the workspace's state (channels, messages,
 * user groups), and lets tests act as users (mention, reply, DM, react, click, submit a modal, share
 * a file) and fault the API.
 *
 * Used by tests only: no test-framework imports here.
 *
 * ```ts
 * const slack = await startSlackStandIn();
 * const app = new App({ token: slack.botToken, appToken: slack.appToken, socketMode: true,
 *   clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } } });
 * await app.start();
 * const ts = await slack.mention({ user: 'U1', channel: 'C0GENERAL', text: 'how many rows?' });
 * await slack.waitFor(() => slack.thread('C0GENERAL', ts).replies.length > 0);
 * await app.stop(); await slack.close();
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Truthy, waitForProbe } from '../wait-for.js';
import { eventCallback, messageEvent, type ViewValues } from './events.js';
import { receiveUpload, serveDownload } from './file-transfer.js';
import { sendText } from './http-body.js';
import type { MethodContext } from './method-handler.js';
import { ResponseUrls } from './response-url.js';
import {
  DEFAULT_SLACK_IDS,
  type Json,
  type SlackAssistantThread,
  type SlackCall,
  type SlackEphemeral,
  type SlackFile,
  type SlackIds,
  type SlackMessage,
  type SlackReaction,
  type SlackResponse,
  SlackState,
  type SlackStreamRecord,
  type SlackView,
} from './slack-state.js';
import { type EnvelopeType, type SlackEnvelope, SocketModeServer } from './socket-mode.js';
import * as surfaces from './surface-actions.js';
import * as actions from './user-actions.js';
import { type SlackFault, WebApi } from './web-api.js';

/** What `waitFor` resolves with: the probe's value once it is truthy. */
export type { Truthy };

export interface SlackStandInOptions {
  /** The bot token the Web API accepts; default `xoxb-stand-in`. Any other gets `invalid_auth`. */
  botToken?: string;
  /** The app-level token `apps.connections.open` accepts; default `xapp-stand-in`. */
  appToken?: string;
  /** Override workspace, app and bot ids; defaults in `DEFAULT_SLACK_IDS` (bot user `UBOT`). */
  ids?: Partial<SlackIds>;
  /** Channels that exist from the start; default `[{ id: 'C0GENERAL', name: 'general' }]`. */
  channels?: Array<{ id: string; name: string }>;
  /** Echo the bot's own posts back as `message` events, as Slack does (Bolt's ignoreSelf drops them). Default true. */
  echoBotMessages?: boolean;
  /** How long an envelope waits for its ack before the action rejects, in milliseconds; default 3000. */
  ackTimeoutMs?: number;
  /** How long a trigger id stays valid for `views.open`, in milliseconds; default 3000 (as Slack). */
  triggerTtlMs?: number;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /**
   * Host name the app reaches the stand-in by, in `apiUrl`, `url` and the Socket Mode and file URLs
   * it hands out (e.g. `host.docker.internal` for tally in a container); default `host`.
   */
  advertisedHost?: string;
  /** Several app connections (replicas): events go to the latest (default) or to each in turn, like Slack's random pick. */
  spread?: 'latest' | 'in-turn';
}

export interface SlackStandIn {
  /** `http://127.0.0.1:<port>/api/` (or the advertised host), for `clientOptions.slackApiUrl`. */
  readonly apiUrl: string;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly botToken: string;
  readonly appToken: string;
  readonly ids: SlackIds;
  /** Every Web API call, in arrival order. */
  readonly calls: readonly SlackCall[];
  callsTo(method: string): SlackCall[];
  /** The next call to `method` fails: `{ status: 429, retryAfterSeconds }` or `{ error: 'internal_error' }`. */
  failNext(method: string, fault: SlackFault): void;
  /** Every call to `method` fails from now on, e.g. `{ error: 'method_not_supported' }`; undefined lifts it. */
  failAlways(method: string, fault: SlackFault | undefined): void;

  /** Resolves when a Socket Mode client is connected and greeted with `hello`. */
  connected(): Promise<void>;
  /** Sends `{type:'disconnect'}`; resolves when the client closed the socket (it reconnects by itself). */
  disconnect(reason?: string): Promise<void>;
  /** Every envelope sent, with its ack once received. */
  readonly envelopes: readonly SlackEnvelope[];
  /** Sends any payload in an envelope and resolves with the ack payload. */
  deliver(type: EnvelopeType, payload: Json, acceptsResponsePayload?: boolean): Promise<Json>;
  /** Slack's retry of an envelope's event, as if its ack never arrived: the same payload, `retry_attempt` one more. */
  redeliver(envelope: SlackEnvelope): Promise<Json>;

  /** A channel message mentioning the bot: `app_mention` + `message`. Resolves with its ts. */
  mention(input: { user: string; channel: string; text: string; threadTs?: string }): Promise<string>;
  /** A thread reply (`message` with `thread_ts`, `parent_user_id`). Resolves with its ts. */
  reply(input: { user: string; channel: string; threadTs: string; text: string }): Promise<string>;
  /** A message in the user's DM with the bot (`channel_type: 'im'`). Resolves with its ts. */
  directMessage(input: { user: string; text: string; threadTs?: string }): Promise<string>;
  react(input: { user: string; channel: string; ts: string; reaction: string }): Promise<void>;
  /** Clicks an element of a message's blocks (`block_actions`); resolves once the app acked. */
  click(input: {
    user: string;
    channel: string;
    messageTs: string;
    actionId: string;
    value?: string;
    blockId?: string;
  }): Promise<actions.SlackClick>;
  /** Submits an open modal; resolves with the ack payload (e.g. `response_action: 'errors'`). */
  submitView(input: { user: string; viewId: string; values: ViewValues }): Promise<Json>;
  shareFile(input: actions.ShareFileInput): Promise<{ ts: string; fileId: string }>;
  slashCommand(input: { user: string; channel: string; command: string; text: string }): Promise<actions.SlackClick>;
  /** The user opens a new assistant thread (split view or the app's DM): `assistant_thread_started`. */
  startAssistantThread(input: {
    user: string;
    contextChannel?: string;
  }): Promise<{ channel: string; threadTs: string }>;
  /** The user opens the app's Home tab (default) or Messages tab: `app_home_opened`. */
  openAppHome(input: { user: string; tab?: 'home' | 'messages' }): Promise<void>;
  /** The author edits their message: `message` of subtype `message_changed`. */
  editMessage(input: { user: string; channel: string; ts: string; text: string }): Promise<void>;

  /** Messages of a channel (thread replies included), or of one thread (parent first). Oldest first. */
  messages(channel: string, threadTs?: string): SlackMessage[];
  thread(channel: string, ts: string): { parent: SlackMessage | undefined; replies: SlackMessage[] };
  ephemerals(user?: string): SlackEphemeral[];
  /** Uploaded and shared files whose bytes arrived. */
  files(): SlackFile[];
  reactions(channel: string, ts: string): SlackReaction[];
  views(): SlackView[];
  /** Streamed messages (`chat.startStream`), oldest first; of one thread when `threadTs` is given. */
  streams(channel: string, threadTs?: string): SlackStreamRecord[];
  /** The Home tab last published for `user` (`views.publish`). */
  homeView(user: string): SlackView | undefined;
  /** Title and suggested prompts the app set on an assistant thread. */
  assistantThread(channel: string, threadTs: string): SlackAssistantThread | undefined;
  /** POSTs to response_urls (Bolt's `respond()`). */
  readonly responses: readonly SlackResponse[];
  addChannel(id: string, name?: string): void;
  /** Creates user group `id` (`S…`) or replaces its members; `usergroups.users.list` answers with them. */
  setUsergroup(id: string, users: readonly string[]): void;
  /** How many `usergroups.users.list` calls asked for group `id`, answered or not (to see caching). */
  usergroupCalls(id: string): number;
  /** The id of the bot's DM channel with `user`. */
  imChannel(user: string): string;

  /**
   * Resolves with the probe's first truthy value, checked on every state change and every 20 ms;
   * rejects after `timeoutMs` (default 5000) listing the last Web API calls.
   */
  waitFor<T>(probe: () => T, timeoutMs?: number): Promise<Truthy<T>>;
  /** The first call to `method` matching `predicate` (default: answered ok). */
  waitForCall(method: string, predicate?: (call: SlackCall) => boolean, timeoutMs?: number): Promise<SlackCall>;
  close(): Promise<void>;
}

export async function startSlackStandIn(options: SlackStandInOptions = {}): Promise<SlackStandIn> {
  const botToken = options.botToken ?? 'xoxb-stand-in';
  const appToken = options.appToken ?? 'xapp-stand-in';
  const ids: SlackIds = { ...DEFAULT_SLACK_IDS, ...options.ids };
  const state = new SlackState(ids, options.triggerTtlMs ?? 3000);
  for (const channel of options.channels ?? [{ id: 'C0GENERAL', name: 'general' }]) {
    state.ensureChannel(channel.id, channel.name);
  }
  const socket = new SocketModeServer({
    appId: ids.appId,
    ackTimeoutMs: options.ackTimeoutMs ?? 3000,
    ...(options.spread ? { spread: options.spread } : {}),
    onChange: () => state.changed(),
  });
  const responseUrls = new ResponseUrls();
  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendText(response, 500, `Slack stand-in failed: ${String(error)}`);
      else response.destroy();
    });
  });
  server.on('upgrade', (request, duplex, head) => {
    if ((request.url ?? '').startsWith('/link')) socket.handleUpgrade(request, duplex, head);
    else duplex.destroy();
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.advertisedHost ?? host}:${port}`;

  const echoBotMessages = options.echoBotMessages ?? true;
  const methods: MethodContext = {
    state,
    ids,
    baseUrl: url,
    openConnection: () => socket.issueUrl(`ws://${options.advertisedHost ?? host}:${port}`),
    botPosted: (message) => {
      if (!echoBotMessages || !socket.isConnected()) return;
      const event = messageEvent(message, state.channelType(message.channel), ids.teamId);
      // After the API reply, as in Slack; the app acks it but ignoreSelf drops it, and nothing waits on it.
      setImmediate(() => socket.deliver('events_api', eventCallback(ids, event), false).catch(() => undefined));
    },
  };
  const webApi = new WebApi({ botToken, appToken, context: methods });
  const context: actions.UserActionContext = { state, socket, responseUrls, methods };

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', url).pathname;
    const [, root = '', first = '', ...rest] = path.split('/');
    if (request.method === 'POST' && root === 'api' && first !== '') return webApi.handle(request, response, first);
    if (request.method === 'POST' && root === 'upload') return receiveUpload(request, response, state, rest[0] ?? '');
    if (request.method === 'POST' && root === 'respond') return responseUrls.receive(request, response, methods, first);
    if (request.method === 'GET' && root === 'files-pri') {
      return serveDownload(request, response, state, { botToken, fileId: first.slice(first.indexOf('-') + 1) });
    }
    sendText(response, 404, `Slack stand-in: no route for ${request.method} ${path}`);
  }

  const waitFor = <T>(probe: () => T, timeoutMs = 5000): Promise<Truthy<T>> =>
    waitForProbe(state, probe, timeoutMs, () => {
      const recent = state.calls.slice(-12).map((call) => `${call.method} -> ${call.outcome}`);
      return `Slack stand-in's last calls: ${recent.join(', ') || 'none'}`;
    });

  return {
    apiUrl: `${url}/api/`,
    url,
    botToken,
    appToken,
    ids,
    calls: state.calls,
    callsTo: (method) => state.calls.filter((call) => call.method === method),
    failNext: (method, fault) => webApi.failNext(method, fault),
    failAlways: (method, fault) => webApi.failAlways(method, fault),
    connected: () => socket.connected(),
    disconnect: (reason) => socket.disconnect(reason),
    envelopes: socket.envelopes,
    deliver: (type, payload, acceptsResponsePayload = type !== 'events_api') =>
      socket.deliver(type, payload, acceptsResponsePayload),
    redeliver: (envelope) =>
      socket.deliver(envelope.type, envelope.payload, envelope.accepts_response_payload, envelope.retry_attempt + 1),
    mention: (input) => actions.postMention(context, input),
    reply: (input) => actions.postReply(context, input),
    directMessage: (input) => actions.postDirectMessage(context, input),
    react: (input) => actions.addUserReaction(context, input),
    click: (input) => actions.clickElement(context, input),
    submitView: (input) => actions.submitOpenView(context, input),
    shareFile: (input) => actions.shareUserFile(context, input),
    slashCommand: (input) => actions.runSlashCommand(context, input),
    startAssistantThread: (input) => surfaces.startAssistantThread(context, input),
    openAppHome: (input) => surfaces.openAppHome(context, input),
    editMessage: (input) => surfaces.editUserMessage(context, input),
    messages: (channel, threadTs) =>
      threadTs === undefined ? state.channelMessages(channel) : state.threadMessages(channel, threadTs),
    thread: (channel, ts) => ({
      parent: state.findMessage(channel, ts),
      replies: state.threadMessages(channel, ts).filter((message) => message.ts !== ts),
    }),
    ephemerals: (user) => state.ephemerals.filter((ephemeral) => user === undefined || ephemeral.user === user),
    files: () => [...state.files.values()].filter((file) => file.bytes !== undefined),
    reactions: (channel, ts) => state.findMessage(channel, ts)?.reactions ?? [],
    views: () => [...state.views.values()],
    streams: (channel, threadTs) =>
      [...state.streams.values()].filter(
        (stream) => stream.channel === channel && (threadTs === undefined || stream.threadTs === threadTs),
      ),
    homeView: (user) => state.homeViews.get(user),
    assistantThread: (channel, threadTs) => state.assistantThreads.get(`${channel}:${threadTs}`),
    responses: state.responses,
    addChannel: (id, name) => void state.ensureChannel(id, name),
    setUsergroup: (id, users) => void state.usergroups.set(id, [...users]),
    usergroupCalls: (id) =>
      state.calls.filter((call) => call.method === 'usergroups.users.list' && call.args.usergroup === id).length,
    imChannel: (user) => state.imChannel(user).id,
    waitFor,
    waitForCall: (method, predicate = (call) => call.outcome === 'ok', timeoutMs = 5000) =>
      waitFor(() => state.calls.find((call) => call.method === method && predicate(call)), timeoutMs),
    close: async () => {
      await socket.close();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
