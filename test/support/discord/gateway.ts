/**
 * The gateway side of the stand-in: a `ws` server at the URL `GET /gateway/bot` hands out (also
 * READY's `resume_gateway_url`). It sends HELLO, answers IDENTIFY with READY then GUILD_CREATE,
 * acks heartbeats, takes RESUME (replaying what the client missed, then RESUMED), and dispatches
 * events with increasing `s`, filtered by the session's intents. One shard, one session at a time.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { closeGracefully } from '../close-gracefully.js';
import type { Json } from './discord-model.js';
import type { DiscordState } from './discord-state.js';
import { filterForIntents } from './intents.js';
import { guildCreateDispatch, readyDispatch, wireMember } from './payloads.js';

const Op = { Dispatch: 0, Heartbeat: 1, Identify: 2, Resume: 6, Reconnect: 7, RequestMembers: 8, Invalid: 9 } as const;
const Hello = 10;
const HeartbeatAck = 11;
/** How many sent dispatches a session keeps for replay on RESUME. */
const REPLAY_LIMIT = 1000;

export interface GatewayOptions {
  state: DiscordState;
  /** The bot token IDENTIFY and RESUME must carry; anything else is closed with 4004. */
  token: string;
  heartbeatIntervalMs: number;
  /** `ws://127.0.0.1:<port>/gateway`. */
  url: string;
}

interface Session {
  id: string;
  intents: number;
  seq: number;
  socket: WebSocket | undefined;
  /** Dispatches sent (or held while the socket was down), newest last, for replay on RESUME. */
  sent: Array<{ s: number; t: string; d: Json }>;
}

export interface GatewayStats {
  /** True while a session is identified (or resumed) on an open socket. */
  online: boolean;
  identifies: number;
  resumes: number;
  heartbeats: number;
  /** The `s` of the last dispatch, for tests that check ordering. */
  lastSequence: number;
}

export class GatewayServer {
  readonly stats: GatewayStats = { online: false, identifies: 0, resumes: 0, heartbeats: 0, lastSequence: 0 };
  private readonly server = new WebSocketServer({ noServer: true });
  private session: Session | undefined;
  private waiters: Array<() => void> = [];
  /** Sockets accepted while HELLO is held, waiting for it; undefined when it is not held. */
  private heldHello: WebSocket[] | undefined;

  constructor(private readonly options: GatewayOptions) {}

  handleUpgrade(request: IncomingMessage, duplex: Duplex, head: Buffer): void {
    this.server.handleUpgrade(request, duplex, head, (socket) => this.accept(socket, request));
  }

  /** True while a session is identified (or resumed) on an open socket. */
  isConnected(): boolean {
    return this.session?.socket !== undefined && this.stats.online;
  }

  /** Resolves once READY and GUILD_CREATE (or RESUMED) were sent on an open socket; at once if they were. */
  connected(): Promise<void> {
    if (this.isConnected()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Sends a dispatch with the next `s`. While the client is reconnecting the event is held and
   * replayed on RESUME, as Discord does. Rejects when no client ever identified.
   */
  dispatch(type: string, data: Json): Promise<void> {
    const session = this.session;
    if (!session) {
      return Promise.reject(
        new Error(
          `Discord stand-in: cannot dispatch ${type}: no discord.js client is connected to the gateway ` +
            '(await client.login(standIn.token) and standIn.connected() first)',
        ),
      );
    }
    const visible = filterForIntents(type, data, session.intents, this.options.state.ids.botUserId);
    if (!visible) return Promise.resolve();
    session.seq += 1;
    this.stats.lastSequence = session.seq;
    const event = { s: session.seq, t: type, d: visible };
    session.sent.push(event);
    if (session.sent.length > REPLAY_LIMIT) session.sent.shift();
    return session.socket ? send(session.socket, { op: Op.Dispatch, ...event }) : Promise.resolve();
  }

  /** Sends op 7 RECONNECT; resolves once the client came back and RESUMED was sent. */
  requestReconnect(): Promise<void> {
    const socket = this.session?.socket;
    if (!socket) return Promise.reject(new Error('Discord stand-in: no gateway session to reconnect'));
    const resumed = this.nextConnection();
    void send(socket, { op: Op.Reconnect, d: null, s: null, t: null });
    return resumed;
  }

  /** Sends op 9 INVALID_SESSION; resolves once the client resumed or identified again. */
  invalidateSession(resumable: boolean): Promise<void> {
    const socket = this.session?.socket;
    if (!socket) return Promise.reject(new Error('Discord stand-in: no gateway session to invalidate'));
    const back = this.nextConnection();
    if (!resumable) {
      this.session = undefined;
      this.stats.online = false;
    }
    void send(socket, { op: Op.Invalid, d: resumable, s: null, t: null });
    return back;
  }

  /**
   * Holds HELLO back from connections made from now on (the client sits in "connecting", as when the
   * gateway is slow to answer); `releaseHello` sends it to them and to later ones.
   */
  holdHello(): void {
    this.heldHello ??= [];
  }

  releaseHello(): void {
    const held = this.heldHello ?? [];
    this.heldHello = undefined;
    for (const socket of held) this.hello(socket);
  }

  async close(): Promise<void> {
    this.heldHello = undefined;
    this.session = undefined;
    this.stats.online = false;
    await Promise.all([...this.server.clients].map((client) => closeGracefully(client)));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private nextConnection(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private accept(socket: WebSocket, request: IncomingMessage): void {
    const query = new URL(request.url ?? '/', 'http://stand-in.local').searchParams;
    socket.on('error', () => socket.terminate());
    socket.on('message', (data) => this.onMessage(socket, data.toString()));
    socket.on('close', (code) => this.onClose(socket, code));
    if (query.get('v') !== '10' || query.get('encoding') !== 'json' || query.has('compress')) {
      // zlib-stream compression (zlib-sync installed) and ETF are not spoken here; 4012 stops discord.js retrying.
      const reason = `stand-in speaks v=10 encoding=json without compress, got ${query.toString()}`;
      console.error(`Discord stand-in gateway: ${reason}`);
      socket.close(4012, reason.slice(0, 120));
      return;
    }
    if (this.heldHello) this.heldHello.push(socket);
    else this.hello(socket);
  }

  private hello(socket: WebSocket): void {
    void send(socket, { op: Hello, d: { heartbeat_interval: this.options.heartbeatIntervalMs }, s: null, t: null });
  }

  private onMessage(socket: WebSocket, text: string): void {
    let payload: { op?: number; d?: unknown };
    try {
      payload = JSON.parse(text) as typeof payload;
    } catch {
      socket.close(4002, 'Error while decoding payload.');
      return;
    }
    const data = (payload.d ?? {}) as Json;
    switch (payload.op) {
      case Op.Heartbeat:
        this.stats.heartbeats += 1;
        void send(socket, { op: HeartbeatAck, d: null, s: null, t: null });
        break;
      case Op.Identify:
        this.identify(socket, data);
        break;
      case Op.Resume:
        this.resume(socket, data);
        break;
      case Op.RequestMembers:
        this.sendMembers(socket, data);
        break;
      default:
        // Presence (3) and voice state (4) updates need no answer.
        break;
    }
  }

  private identify(socket: WebSocket, data: Json): void {
    if (data.token !== this.options.token) {
      socket.close(4004, 'Authentication failed.');
      return;
    }
    if (this.session?.socket === socket) {
      socket.close(4005, 'Already authenticated.');
      return;
    }
    this.stats.identifies += 1;
    const session: Session = {
      id: randomBytes(16).toString('hex'),
      intents: Number(data.intents ?? 0),
      seq: 0,
      socket,
      sent: [],
    };
    this.session = session;
    const { state } = this.options;
    void this.dispatch('READY', readyDispatch(state, { sessionId: session.id, resumeGatewayUrl: this.options.url }));
    void this.dispatch('GUILD_CREATE', guildCreateDispatch(state)).then(() => this.settle());
  }

  private resume(socket: WebSocket, data: Json): void {
    const session = this.session;
    if (data.token !== this.options.token) {
      socket.close(4004, 'Authentication failed.');
      return;
    }
    if (!session || session.id !== data.session_id) {
      // Not resumable: the client identifies afresh after its own short delay.
      void send(socket, { op: Op.Invalid, d: false, s: null, t: null });
      return;
    }
    this.stats.resumes += 1;
    session.socket = socket;
    const seq = Number(data.seq ?? 0);
    const missed = session.sent.filter((event) => event.s > seq);
    for (const event of missed) void send(socket, { op: Op.Dispatch, ...event });
    session.seq += 1;
    this.stats.lastSequence = session.seq;
    void send(socket, { op: Op.Dispatch, s: session.seq, t: 'RESUMED', d: { _trace: ['stand-in'] } }).then(() =>
      this.settle(),
    );
  }

  /** GUILD_MEMBERS_CHUNK for op 8 (`guild.members.fetch()` without an id). */
  private sendMembers(socket: WebSocket, data: Json): void {
    const { state } = this.options;
    const wanted = Array.isArray(data.user_ids) ? (data.user_ids as string[]) : undefined;
    const query = typeof data.query === 'string' ? data.query.toLowerCase() : '';
    const ids = [...state.users.values()]
      .filter((user) => (wanted ? wanted.includes(user.id) : user.username.toLowerCase().startsWith(query)))
      .map((user) => user.id);
    const chunk = {
      guild_id: state.ids.guildId,
      members: ids.map((id) => wireMember(state, id)),
      chunk_index: 0,
      chunk_count: 1,
      not_found: (wanted ?? []).filter((id) => !ids.includes(id)),
      ...(data.nonce === undefined ? {} : { nonce: data.nonce }),
    };
    if (this.session?.socket === socket) void this.dispatch('GUILD_MEMBERS_CHUNK', chunk);
  }

  private settle(): void {
    this.stats.online = true;
    for (const resolve of this.waiters.splice(0)) resolve();
    this.options.state.changed();
  }

  private onClose(socket: WebSocket, code: number): void {
    const session = this.session;
    if (session?.socket !== socket) return;
    session.socket = undefined;
    this.stats.online = false;
    // A normal close ends the session on Discord; anything else (4200 resuming, 1006) keeps it resumable.
    if (code === 1000 || code === 1001) this.session = undefined;
    this.options.state.changed();
  }
}

function send(socket: WebSocket, payload: Json): Promise<void> {
  if (socket.readyState !== socket.OPEN) return Promise.resolve();
  return new Promise((resolve) => socket.send(JSON.stringify(payload), () => resolve()));
}
