/**
 * The main-thread end of sqlite-worker.js: one statement at a time, rows arriving in batches a few
 * ahead of the consumer (so the worker never waits for it, and memory stays bounded), and a time
 * limit enforced by terminating the worker and starting another.
 */
import { Worker } from 'node:worker_threads';
import { QueryCancelledError, QueryFailedError, QueryTimeoutError } from '../../base/errors.js';
import { CHUNK_ROWS } from '../extract/extract-into-kernel.js';
import { batchRows, type SqliteBatch } from './sqlite-batch.js';
import type { Batch } from './sqlite-read-batch.js';

type Reply =
  | { op: 'columns'; columns: Array<{ name: string; type: string | null }> }
  | Batch['message']
  | { op: 'closed' }
  | { op: 'error'; message: string; code: string };

/**
 * Batches the worker may read before the consumer takes one: with two, it reads the next while the
 * consumer encodes one and another waits, and at most four batches are held at once.
 */
const AHEAD = 2;

export interface SqliteRunOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Rows per batch, at most CHUNK_ROWS (the default): a preview of 1,000 rows reads little more. */
  batchRows?: number | undefined;
}

export interface SqliteStatement {
  columns: Array<{ name: string; type: string | null }>;
  /** Rows in batches; or `columnBatches`, the same column by column (consume one of the two). */
  batches: AsyncIterable<unknown[][]>;
  columnBatches: AsyncIterable<SqliteBatch>;
  cancel(): Promise<void>;
}

export class SqliteRunner {
  private worker: Worker;
  /** Takes every reply of the running statement, or why the worker went away. */
  private listener: ((reply: Reply | Error) => void) | undefined;
  /** Why the current worker is gone, when it died on its own (e.g. the file could not be opened). */
  private dead: Error | undefined;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly database: string,
  ) {
    this.worker = this.spawn();
  }

  /**
   * Runs `statement` and hands it to `use`; the next statement waits until `use` is done. Past
   * `timeoutMs`, or on abort, the worker is terminated, which stops SQLite at once.
   */
  run<T>(sql: string, options: SqliteRunOptions, use: (statement: SqliteStatement) => Promise<T>): Promise<T> {
    const result = this.tail.then(() => this.execute(sql, options, use));
    this.tail = result.catch(() => {});
    return result;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private async execute<T>(
    sql: string,
    options: SqliteRunOptions,
    use: (statement: SqliteStatement) => Promise<T>,
  ): Promise<T> {
    const { timeoutMs, signal } = options;
    if (signal?.aborted) throw new QueryCancelledError();
    if (this.dead) throw this.dead;
    let stopped: Error | undefined;
    const stop = (error: Error) => {
      stopped ??= error;
      void this.restart(error);
    };
    const timer = setTimeout(() => stop(new QueryTimeoutError(timeoutMs)), timeoutMs);
    const onAbort = () => stop(new QueryCancelledError());
    signal?.addEventListener('abort', onAbort, { once: true });
    const replies = new Replies(this.database);
    this.listener = (reply) => replies.push(reply);
    // Open in the worker until a batch says done, an error ends it, or a close is answered.
    let open = true;
    const close = async () => {
      if (!open || stopped) return;
      open = false;
      this.worker.postMessage({ op: 'close' });
      await replies.drainUntilClosed();
    };
    try {
      const rows = Math.max(1, Math.min(options.batchRows ?? CHUNK_ROWS, CHUNK_ROWS));
      this.worker.postMessage({ op: 'open', sql, rows, ahead: AHEAD });
      const opened = await replies.next().catch((error: unknown) => {
        open = false;
        throw error;
      });
      if (opened.op !== 'columns') throw new Error('unexpected reply to open');
      const worker = this.worker;
      const columnBatches = (async function* (): AsyncGenerator<SqliteBatch> {
        while (open) {
          const reply = await replies.next().catch((error: unknown) => {
            open = false;
            throw error;
          });
          if (reply.op !== 'rows') throw new Error('unexpected reply while reading rows');
          if (reply.done) open = false;
          else worker.postMessage({ op: 'next' }); // room for one more, read while this one is used
          if (reply.count > 0) yield { columns: reply.columns, rows: reply.count };
        }
      })();
      const result = await use({
        columns: opened.columns,
        columnBatches,
        batches: (async function* () {
          for await (const batch of columnBatches) yield batchRows(batch);
        })(),
        cancel: close,
      });
      await close();
      return result;
    } catch (error) {
      await close().catch(() => {});
      throw stopped ?? error;
    } finally {
      this.listener = undefined;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./sqlite-worker.js', import.meta.url), { workerData: { path: this.path } });
    worker.on('message', (reply: Reply) => {
      if (worker === this.worker) this.listener?.(reply);
    });
    worker.on('error', (error) => {
      if (worker !== this.worker) return;
      this.dead = new QueryFailedError(this.database, error.message, error);
      this.listener?.(this.dead);
    });
    worker.unref();
    return worker;
  }

  private async restart(reason: Error): Promise<void> {
    const old = this.worker;
    this.dead = undefined;
    this.worker = this.spawn();
    this.listener?.(reason);
    await old.terminate();
  }
}

/** The running statement's replies, in order; an error reply or a lost worker ends them. */
class Replies {
  private readonly queue: Reply[] = [];
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly database: string) {}

  push(reply: Reply | Error): void {
    if (reply instanceof Error) this.failure ??= reply;
    else this.queue.push(reply);
    this.wake?.();
  }

  /** The next reply; rejects on an error reply or once the worker is gone. */
  async next(): Promise<Exclude<Reply, { op: 'error' }>> {
    for (;;) {
      if (this.failure) throw this.failure; // before any batch still queued: a time limit stops at once
      const reply = this.queue.shift();
      if (reply?.op === 'error') throw new QueryFailedError(this.database, reply.message);
      if (reply) return reply;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }

  /** Skips what the worker sent before it saw the close (batches read ahead, an error) up to its answer. */
  async drainUntilClosed(): Promise<void> {
    for (;;) {
      const reply = await this.next().catch((error: unknown) => {
        if (error instanceof QueryFailedError && !this.failure) return undefined; // an error reply: keep going
        throw error;
      });
      if (reply?.op === 'closed') return;
    }
  }
}
