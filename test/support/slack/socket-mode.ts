/**
 * The Socket Mode side of the stand-in: a `ws` server behind the `wss` URL that
 * `apps.connections.open` hands out. It greets each connection with `hello`, sends envelopes and
 * waits for the client's ack `{ envelope_id, payload }`, and can ask the client to reconnect.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { closeGracefully } from '../close-gracefully.js';
import type { Json } from './slack-state.js';

export type EnvelopeType = 'events_api' | 'interactive' | 'slash_commands';

/** One envelope sent to the app, with the ack once it came. */
export interface SlackEnvelope {
  envelope_id: string;
  type: EnvelopeType;
  payload: Json;
  accepts_response_payload: boolean;
  retry_attempt: number;
  retry_reason: string;
  /** The ack's `payload` (`{}` for a bare `ack()`); unset until acked. */
  ack?: Json;
}

interface PendingAck {
  envelope: SlackEnvelope;
  resolve: (payload: Json) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface SocketModeServerOptions {
  appId: string;
  /** How long `deliver` waits for the ack, in milliseconds. */
  ackTimeoutMs: number;
  /**
   * Which open connection an envelope goes to: the one greeted last (default), or each in turn. Slack sends
   * each event to one of an app's connections, picked at random (several replicas each hold one);
   * taking turns is that, made repeatable.
   */
  spread?: 'latest' | 'in-turn';
  onChange: () => void;
}

export class SocketModeServer {
  readonly envelopes: SlackEnvelope[] = [];
  private readonly server = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly pending = new Map<string, PendingAck>();
  private readonly helloWaiters: Array<() => void> = [];
  /** The connection that got `hello` last; envelopes go there. */
  private live: WebSocket | undefined;
  /** Every greeted connection still open, for `spread: 'in-turn'`. */
  private readonly greeted: WebSocket[] = [];
  private turn = 0;

  constructor(private readonly options: SocketModeServerOptions) {}

  /** A one-time URL for `apps.connections.open`, like Slack's `wss://…/link/?ticket=…`. */
  issueUrl(baseWsUrl: string): string {
    const ticket = randomUUID();
    this.tickets.add(ticket);
    return `${baseWsUrl}/link/?ticket=${ticket}&app_id=${this.options.appId}`;
  }

  /** Takes an HTTP upgrade for `/link/`; a missing or reused ticket gets 401. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const ticket = new URL(request.url ?? '/', 'http://stand-in.local').searchParams.get('ticket') ?? '';
    if (!this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    this.server.handleUpgrade(request, socket, head, (websocket) => this.accept(websocket));
  }

  isConnected(): boolean {
    return this.live !== undefined;
  }

  /** Resolves once a client is connected and has been sent `hello` (at once if one is). */
  connected(): Promise<void> {
    if (this.live) return Promise.resolve();
    return new Promise((resolve) => this.helloWaiters.push(resolve));
  }

  /**
   * Sends an envelope and resolves with the ack's payload; rejects after `ackTimeoutMs`. `retryAttempt` above 0 is
   * Slack's retry of an event it had no ack for (`retry_reason: 'timeout'`): the same payload in a new envelope.
   */
  deliver(type: EnvelopeType, payload: Json, acceptsResponsePayload: boolean, retryAttempt = 0): Promise<Json> {
    const socket =
      this.options.spread === 'in-turn' && this.greeted.length > 0
        ? this.greeted[this.turn++ % this.greeted.length]
        : this.live;
    const what = describe(type, payload);
    if (!socket) {
      return Promise.reject(
        new Error(`Slack stand-in: cannot deliver ${what}: no Socket Mode client is connected (await app.start())`),
      );
    }
    const envelope: SlackEnvelope = {
      envelope_id: randomUUID(),
      type,
      payload,
      accepts_response_payload: acceptsResponsePayload,
      retry_attempt: retryAttempt,
      retry_reason: retryAttempt > 0 ? 'timeout' : '',
    };
    this.envelopes.push(envelope);
    return new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(envelope.envelope_id);
        reject(
          new Error(
            `Slack stand-in: no ack for ${what} within ${this.options.ackTimeoutMs} ms (option ackTimeoutMs). ` +
              'Bolt acks events itself, but interactive payloads and commands only when a listener calls ack().',
          ),
        );
      }, this.options.ackTimeoutMs);
      this.pending.set(envelope.envelope_id, { envelope, resolve, reject, timer });
      const { ack: _ack, ...wire } = envelope;
      socket.send(JSON.stringify(wire));
    });
  }

  /** Sends `{type:'disconnect'}` (the client closes and reconnects) and resolves when the socket closed. */
  disconnect(reason = 'refresh_requested'): Promise<void> {
    const socket = this.live;
    if (!socket) return Promise.resolve();
    this.live = undefined;
    return new Promise((resolve) => {
      socket.once('close', () => resolve());
      socket.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-stand-in' } }));
    });
  }

  async close(): Promise<void> {
    for (const { timer, reject, envelope } of this.pending.values()) {
      clearTimeout(timer);
      reject(new Error(`Slack stand-in closed before ${describe(envelope.type, envelope.payload)} was acked`));
    }
    this.pending.clear();
    this.live = undefined;
    const closing = [...this.server.clients].map((client) => closeGracefully(client));
    await Promise.all(closing);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(websocket: WebSocket): void {
    websocket.on('message', (data) => this.onMessage(data.toString()));
    websocket.on('close', () => {
      if (this.live === websocket) this.live = undefined;
      const at = this.greeted.indexOf(websocket);
      if (at >= 0) this.greeted.splice(at, 1);
    });
    websocket.on('error', () => websocket.terminate());
    const hello = {
      type: 'hello',
      num_connections: this.server.clients.size,
      debug_info: { host: 'applink-stand-in', build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: this.options.appId },
    };
    websocket.send(JSON.stringify(hello), () => {
      this.live = websocket;
      this.greeted.push(websocket);
      for (const resolve of this.helloWaiters.splice(0)) resolve();
      this.options.onChange();
    });
  }

  private onMessage(text: string): void {
    let message: { envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (typeof message.envelope_id !== 'string') return;
    const pending = this.pending.get(message.envelope_id);
    if (!pending) return;
    this.pending.delete(message.envelope_id);
    clearTimeout(pending.timer);
    const payload = (message.payload ?? {}) as Json;
    pending.envelope.ack = payload;
    pending.resolve(payload);
    this.options.onChange();
  }
}

function describe(type: EnvelopeType, payload: Json): string {
  const event = payload.event as Json | undefined;
  const kind = event?.type ?? payload.type ?? payload.command ?? '?';
  return `${type} envelope (${String(kind)})`;
}
