// @ts-check
/**
 * Runs SQLite statements for SqliteDatabase off the main thread: a long query never blocks the bot,
 * and the owner can stop one by terminating this worker (better-sqlite3 has no interrupt). Plain
 * JavaScript so it loads the same under tsx, vitest and compiled code.
 *
 * Messages in:  {op:'open', sql} | {op:'next', rows} | {op:'close'}
 * Messages out: {op:'columns', columns:[{name,type}]} | {op:'rows', rows, done} | {op:'closed'} | {op:'error', message, code}
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('query_only = ON');
db.defaultSafeIntegers(true); // integers past 2^53 arrive as BigInt, never rounded

/** @type {IterableIterator<unknown[]> | null} */
let iterator = null;

function stop() {
  iterator?.return?.();
  iterator = null;
}

parentPort?.on('message', (message) => {
  try {
    if (message.op === 'open') {
      stop();
      const statement = db.prepare(message.sql);
      if (!statement.reader) throw Object.assign(new Error('the statement returns no rows'), { code: 'NOT_A_QUERY' });
      if (!statement.readonly) throw Object.assign(new Error('the statement would write'), { code: 'NOT_READ_ONLY' });
      statement.raw(true);
      const columns = statement.columns().map((column) => ({ name: column.name, type: column.type }));
      iterator = /** @type {IterableIterator<unknown[]>} */ (statement.iterate());
      parentPort?.postMessage({ op: 'columns', columns });
    } else if (message.op === 'next') {
      const rows = [];
      let done = iterator === null;
      while (!done && rows.length < message.rows) {
        const next = /** @type {IterableIterator<unknown[]>} */ (iterator).next();
        if (next.done) done = true;
        else rows.push(next.value);
      }
      if (done) iterator = null;
      parentPort?.postMessage({ op: 'rows', rows, done });
    } else if (message.op === 'close') {
      stop();
      parentPort?.postMessage({ op: 'closed' });
    }
  } catch (error) {
    stop();
    const { message: text, code } = /** @type {{message: string, code?: string}} */ (error);
    parentPort?.postMessage({ op: 'error', message: text, code: code ?? 'SQLITE_ERROR' });
  }
});
