/**
 * The host end of the driver protocol (see kernel/driver.py): one attached stdin/stdout stream per
 * container, JSON lines both ways, one reply per request matched by id (a reply's large payloads
 * may come as a file beside it: see reply-attachment.ts). Request ids are random and
 * used once, so code in the sandbox cannot answer a request it has not seen; code that reads the
 * pending id out of the driver's memory can still answer for its own cell (see attacks.test.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { z } from 'zod';
import type { Logger } from '../src/base/logger.js';
import { type AttachedStdio, attachStdio } from './attach-stdio.js';
import { JsonLineReader } from './json-lines.js';

export const PROTOCOL_VERSION = 2;
/** How every line from the driver starts (json.dumps with compact separators puts "v" first). */
const LINE_PREFIX = `{"v":${PROTOCOL_VERSION},`;
const STDERR_KEEP_BYTES = 8192;
/** Ids of answered requests remembered, to notice a second answer to one of them. */
const ANSWERED_KEPT = 16;
const ID_BYTES = 16;
/** Ids drawn from the system's generator at a time: one draw costs about as much as the driver's work on a cell. */
const IDS_PER_DRAW = 256;
let idPool = Buffer.alloc(0);
let idOffset = 0;

/** A fresh random request id, 32 hex digits. */
function nextRequestId(): string {
  if (idOffset === idPool.length) {
    idPool = randomBytes(ID_BYTES * IDS_PER_DRAW);
    idOffset = 0;
  }
  idOffset += ID_BYTES;
  return idPool.toString('hex', idOffset - ID_BYTES, idOffset);
}

const readyMessage = z.strictObject({
  v: z.literal(PROTOCOL_VERSION),
  type: z.literal('ready'),
  pid: z.number().int(),
  python: z.string(),
  preloaded: z.array(z.string()),
});

export type ReadyMessage = z.infer<typeof readyMessage>;

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
  private readonly answered: string[] = [];
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
    const reader = new JsonLineReader(
      options.maxLineBytes,
      {
        message: (message) => this.dispatch(message),
        garbage: (sample) => options.logger.debug({ sample }, 'ignored non-protocol line from kernel'),
        oversize: (bytes) => this.failAll(new ReplyTooLargeError(bytes)),
      },
      LINE_PREFIX,
    );
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
  static async attach(container: Docker.Container, options: KernelChannelOptions) {
    return new KernelChannel(await attachStdio(container), options);
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
    const id = nextRequestId();
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

  /** Hands a reply to its request; what it holds is checked by whoever made the request. */
  private dispatch(message: Record<string, unknown>): void {
    if (message.type === 'ready') {
      const ready = readyMessage.safeParse(message);
      if (ready.success) this.markReady(ready.data);
      else this.options.logger.warn({ issues: ready.error.issues.length }, 'malformed ready message from kernel');
      return;
    }
    const id = typeof message.id === 'string' ? message.id : undefined;
    const waiter = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || waiter === undefined) {
      const again = id !== undefined && this.answered.includes(id);
      this.options.logger.warn(
        { type: String(message.type).slice(0, 40) },
        again
          ? 'second reply to one request: code in the sandbox answered in the driver’s name'
          : 'kernel reply matched no request',
      );
      return;
    }
    this.pending.delete(id);
    this.answered.push(id);
    if (this.answered.length > ANSWERED_KEPT) this.answered.shift();
    waiter.resolve(message);
  }

  private failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}
