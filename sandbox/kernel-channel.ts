/**
 * The host end of the driver protocol (see kernel/driver.py): one attached stdin/stdout stream per
 * container, JSON lines both ways, one reply per request matched by id.
 */
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { Logger } from '../src/logger.js';
import { type AttachedStdio, attachStdio } from './attach-stdio.js';
import { JsonLineReader } from './json-lines.js';

export const PROTOCOL_VERSION = 1;
const STDERR_KEEP_BYTES = 8192;

export interface ReadyMessage {
  pid: number;
  python: string;
  preloaded: string[];
}

/** Raised to a pending request when the stream ends: the kernel process is gone. */
export class ChannelClosedError extends Error {
  constructor(readonly reason: string) {
    super(`kernel channel closed: ${reason}`);
  }
}

/** Raised to a pending request whose reply was longer than the channel accepts; the kernel lives on. */
export class ReplyTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`kernel reply of ${bytes} bytes was dropped`);
  }
}

export interface KernelChannelOptions {
  /** Longest reply line accepted when a request names no limit of its own. */
  maxLineBytes: number;
  logger: Logger;
}

type Pending = { resolve: (reply: Record<string, unknown>) => void; reject: (error: Error) => void };

export class KernelChannel {
  readonly ready: Promise<ReadyMessage>;
  readonly closed: Promise<string>;
  private readonly pending = new Map<string, Pending>();
  private readonly reader: JsonLineReader;
  private readonly stream: Duplex;
  private stderrTail = '';
  private nextId = 0;
  private closedReason: string | undefined;
  private markReady!: (message: ReadyMessage) => void;
  private failReady!: (error: Error) => void;
  private markClosed!: (reason: string) => void;

  private constructor(
    { stream, stdout, stderr }: AttachedStdio,
    private readonly options: KernelChannelOptions,
  ) {
    this.stream = stream;
    this.ready = new Promise((resolve, reject) => {
      this.markReady = resolve;
      this.failReady = reject;
    });
    this.ready.catch(() => {});
    this.closed = new Promise((resolve) => {
      this.markClosed = resolve;
    });
    const reader = new JsonLineReader(options.maxLineBytes, {
      message: (message) => this.dispatch(message),
      garbage: (sample) => options.logger.debug({ sample }, 'ignored non-protocol line from kernel'),
      oversize: (bytes) => this.failAll(new ReplyTooLargeError(bytes)),
    });
    this.reader = reader;
    stdout.on('data', (chunk: Buffer) => reader.push(chunk));
    stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEEP_BYTES);
    });
    const end = () => this.close('the kernel process exited');
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', (error) => this.close(`stream error: ${error.message}`));
  }

  /** Attaches to a created (not yet started) container so no output is missed. */
  static async attach(container: Docker.Container, modem: Docker['modem'], options: KernelChannelOptions) {
    return new KernelChannel(await attachStdio(container, modem), options);
  }

  get isClosed(): boolean {
    return this.closedReason !== undefined;
  }

  /** The last few KiB the driver wrote to its own stderr (start-up failures). */
  get stderr(): string {
    return this.stderrTail;
  }

  /** Sends one request; `maxReplyBytes` raises the reply cap for a request that may answer at length. */
  request(message: Record<string, unknown>, maxReplyBytes?: number): Promise<Record<string, unknown>> {
    if (this.closedReason !== undefined) return Promise.reject(new ChannelClosedError(this.closedReason));
    this.reader.maxLineBytes = Math.max(this.options.maxLineBytes, maxReplyBytes ?? 0);
    const id = `r${++this.nextId}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.stream.write(`${JSON.stringify({ v: PROTOCOL_VERSION, id, ...message })}\n`);
    });
  }

  close(reason = 'closed by the host'): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    this.failReady(new ChannelClosedError(reason));
    this.failAll(new ChannelClosedError(reason));
    this.markClosed(reason);
    this.stream.destroy();
  }

  private dispatch(message: Record<string, unknown>): void {
    if (message.v !== PROTOCOL_VERSION) {
      this.options.logger.warn({ version: message.v }, 'kernel spoke another protocol version');
      return;
    }
    if (message.type === 'ready') {
      this.markReady(message as unknown as ReadyMessage);
      return;
    }
    const id = typeof message.id === 'string' ? message.id : undefined;
    const waiter = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || waiter === undefined) {
      this.options.logger.warn({ type: message.type }, 'kernel reply matched no request');
      return;
    }
    this.pending.delete(id);
    waiter.resolve(message);
  }

  private failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}
