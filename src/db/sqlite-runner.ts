/**
 * The main-thread end of sqlite-worker.js: one statement at a time, rows pulled in batches (so
 * memory stays bounded), and a time limit enforced by terminating the worker and starting another.
 */
import { Worker } from 'node:worker_threads';
import { QueryCancelledError, QueryFailedError, QueryTimeoutError } from '../errors.js';
import { CHUNK_ROWS } from './extract/extract-into-kernel.js';

type Reply =
  | { op: 'columns'; columns: Array<{ name: string; type: string | null }> }
  | { op: 'rows'; columns: unknown[][]; count: number; done: boolean }
  | { op: 'closed' }
  | { op: 'error'; message: string; code: string };

/** A batch of rows, column by column. */
export interface ColumnBatch {
  columns: unknown[][];
  rows: number;
}

export interface SqliteStatement {
  columns: Array<{ name: string; type: string | null }>;
  /** Rows in batches; or `columnBatches`, the same column by column (consume one of the two). */
  batches: AsyncIterable<unknown[][]>;
  columnBatches: AsyncIterable<ColumnBatch>;
  cancel(): Promise<void>;
}

export class SqliteRunner {
  private worker: Worker;
  private waiting: ((reply: Reply | Error) => void) | undefined;
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
  run<T>(
    sql: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    use: (statement: SqliteStatement) => Promise<T>,
  ): Promise<T> {
    const result = this.tail.then(() => this.execute(sql, timeoutMs, signal, use));
    this.tail = result.catch(() => {});
    return result;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private async execute<T>(
    sql: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    use: (statement: SqliteStatement) => Promise<T>,
  ): Promise<T> {
    if (signal?.aborted) throw new QueryCancelledError();
    let stopped: Error | undefined;
    const stop = (error: Error) => {
      stopped ??= error;
      void this.restart(error);
    };
    const timer = setTimeout(() => stop(new QueryTimeoutError(timeoutMs)), timeoutMs);
    const onAbort = () => stop(new QueryCancelledError());
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const opened = await this.ask({ op: 'open', sql });
      if (opened.op !== 'columns') throw new Error('unexpected reply to open');
      let finished = false;
      const ask = this.ask.bind(this);
      // The next batch is asked for before this one is handed over, so the worker reads rows while
      // the consumer encodes the previous ones.
      let ahead: Promise<Exclude<Reply, { op: 'error' }>> | undefined;
      const askAhead = () => {
        ahead = ask({ op: 'next', rows: CHUNK_ROWS });
        ahead.catch(() => {}); // handled where it is awaited; this only keeps it from counting as unhandled
      };
      const settle = async () => {
        const pending = ahead;
        ahead = undefined;
        await pending?.catch(() => {});
      };
      const columnBatches = (async function* (): AsyncGenerator<ColumnBatch> {
        if (!finished) askAhead();
        while (!finished && ahead) {
          const reply = await ahead;
          ahead = undefined;
          if (reply.op !== 'rows') throw new Error('unexpected reply to next');
          finished = reply.done;
          if (!finished) askAhead();
          if (reply.count > 0) yield { columns: reply.columns, rows: reply.count };
        }
      })();
      const statement: SqliteStatement = {
        columns: opened.columns,
        columnBatches,
        batches: (async function* () {
          for await (const batch of columnBatches) {
            yield Array.from({ length: batch.rows }, (_, row) => batch.columns.map((column) => column[row]));
          }
        })(),
        cancel: async () => {
          await settle();
          if (!finished) await ask({ op: 'close' });
          finished = true;
        },
      };
      const result = await use(statement);
      await settle();
      if (!finished) await this.ask({ op: 'close' });
      return result;
    } catch (error) {
      throw stopped ?? error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private ask(message: Record<string, unknown>): Promise<Exclude<Reply, { op: 'error' }>> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise((resolve, reject) => {
      this.waiting = (reply) => {
        this.waiting = undefined;
        if (reply instanceof Error) reject(reply);
        else if (reply.op === 'error') reject(new QueryFailedError(this.database, reply.message));
        else resolve(reply);
      };
      this.worker.postMessage(message);
    });
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./sqlite-worker.js', import.meta.url), { workerData: { path: this.path } });
    worker.on('message', (reply: Reply) => this.waiting?.(reply));
    worker.on('error', (error) => {
      if (worker !== this.worker) return;
      this.dead = new QueryFailedError(this.database, error.message, error);
      this.waiting?.(this.dead);
    });
    worker.unref();
    return worker;
  }

  private async restart(reason: Error): Promise<void> {
    const old = this.worker;
    this.dead = undefined;
    this.worker = this.spawn();
    this.waiting?.(reason);
    await old.terminate();
  }
}
