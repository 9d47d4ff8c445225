// @ts-check
/**
 * Runs SQLite statements for SqliteDatabase off the main thread: a long query never blocks the bot,
 * and the owner can stop one by terminating this worker (better-sqlite3 has no interrupt). Plain
 * JavaScript so it loads the same under tsx, vitest and compiled code.
 *
 * Messages in:  {op:'open', sql, rows, ahead} | {op:'next'} | {op:'close'}
 * Messages out: {op:'columns', columns:[{name,type}]} | {op:'rows', columns, count, done}
 *               | {op:'closed'} | {op:'error', message, code}
 *
 * After `open` the worker reads on its own, `ahead` batches of `rows` rows before the first `next`:
 * each `next` lets it send one more, so memory stays bounded while it never waits for the main
 * thread to ask (asked batch by batch, it sat idle a tenth of a 1M-row extract). sqlite-read-batch.js
 * reads a batch column by column; integers come as doubles while no number is past 2^53, and as
 * BigInt from there on (sqlite-repeatable.js says when that is safe).
 */
import { createHash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { readBatch } from './sqlite-read-batch.js';
import { repeatable } from './sqlite-repeatable.js';

const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('query_only = ON');
db.defaultSafeIntegers(true); // integers past 2^53 arrive as BigInt, never rounded (see `doubles` below)
// The access policy's pseudonym (src/policy/masked-view.ts): the same digits as MySQL's LEFT(SHA2(CONCAT(k, v)), 16);
// its arguments are exact (BigInt) whether the statement reads integers as doubles or not.
db.function('tally_pseudonym', { deterministic: true, safeIntegers: true }, (key, value) =>
  value === null ? null : createHash('sha256').update(`${key}${value}`).digest('hex').slice(0, 16),
);

/**
 * The open statement: its rows come from `iterator`, in batches of `rows`; `sent` of them have gone
 * to the main thread, and `credit` more batches may.
 * @typedef {import('./sqlite-read-batch.js').BatchSource & { sql: string, sent: number, credit: number,
 *   scheduled: boolean }} OpenStatement
 */

/** @type {OpenStatement | null} */
let open = null;

function stop() {
  open?.iterator.return?.();
  open = null;
}

/**
 * Runs `sql` again with BigInts and moves it past the rows already sent. While the first run is
 * still open the second one shares its read transaction, so it sees the same data (another process
 * may write the file meanwhile); the first is closed once the second has stepped (when nothing was
 * sent yet, every row comes from the second run anyway).
 * @param {OpenStatement} statement
 */
function readExactly(statement) {
  const again = db.prepare(statement.sql).raw(true).safeIntegers(true);
  const iterator = /** @type {IterableIterator<unknown[]>} */ (again.iterate());
  try {
    for (let row = 0; row < statement.sent; row++) {
      if (iterator.next().done) throw new Error('the statement gave fewer rows when run again');
    }
  } catch (error) {
    iterator.return?.();
    throw error;
  }
  statement.iterator.return?.();
  statement.iterator = iterator;
  statement.doubles = false;
}

/** Sends batches while the main thread has room for them; between batches, messages get in. */
function pump() {
  const statement = open;
  if (statement === null) return;
  statement.scheduled = false;
  if (statement.credit <= 0) return;
  try {
    let batch = readBatch(statement);
    if (batch === null) {
      readExactly(statement);
      batch = /** @type {import('./sqlite-read-batch.js').Batch} */ (readBatch(statement));
    }
    const { message, transfer } = batch;
    statement.sent += message.count;
    statement.credit -= 1;
    if (message.done) open = null;
    parentPort?.postMessage(message, transfer);
    if (!message.done) schedule(statement);
  } catch (error) {
    fail(error);
  }
}

/** @param {OpenStatement} statement */
function schedule(statement) {
  if (statement.scheduled || statement.credit <= 0) return;
  statement.scheduled = true;
  setImmediate(pump);
}

/** @param {unknown} error */
function fail(error) {
  stop();
  const { message: text, code } = /** @type {{message: string, code?: string}} */ (error);
  parentPort?.postMessage({ op: 'error', message: text, code: code ?? 'SQLITE_ERROR' });
}

parentPort?.on('message', (message) => {
  try {
    if (message.op === 'open') {
      stop();
      const statement = db.prepare(message.sql);
      if (!statement.reader) throw Object.assign(new Error('the statement returns no rows'), { code: 'NOT_A_QUERY' });
      if (!statement.readonly) throw Object.assign(new Error('the statement would write'), { code: 'NOT_READ_ONLY' });
      // Integers as doubles take the worker about 15% less time than as BigInt (the bench's 1M x 10
      // table); a statement that a second run would not repeat (random(), the clock) has BigInts
      // from the start, since it could not go on where it was after one past 2^53.
      const doubles = repeatable(db, message.sql);
      statement.raw(true).safeIntegers(!doubles);
      const columns = statement.columns().map((column) => ({ name: column.name, type: column.type }));
      open = {
        iterator: /** @type {IterableIterator<unknown[]>} */ (statement.iterate()),
        sql: message.sql,
        width: columns.length,
        rows: message.rows,
        numeric: columns.map(() => true),
        doubles,
        sent: 0,
        credit: message.ahead,
        scheduled: false,
      };
      parentPort?.postMessage({ op: 'columns', columns });
      schedule(open);
    } else if (message.op === 'next') {
      if (open) {
        open.credit += 1;
        schedule(open);
      }
    } else if (message.op === 'close') {
      stop();
      parentPort?.postMessage({ op: 'closed' });
    }
  } catch (error) {
    fail(error);
  }
});
