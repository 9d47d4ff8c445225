// @ts-check
/**
 * Runs SQLite statements for SqliteDatabase off the main thread: a long query never blocks the bot,
 * and the owner can stop one by terminating this worker (better-sqlite3 has no interrupt). Plain
 * JavaScript so it loads the same under tsx, vitest and compiled code.
 *
 * Messages in:  {op:'open', sql} | {op:'next', rows} | {op:'close'}
 * Messages out: {op:'columns', columns:[{name,type}]} | {op:'rows', columns:[values per column], count, done}
 *               | {op:'closed'} | {op:'error', message, code}
 */
import { createHash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('query_only = ON');
db.defaultSafeIntegers(true); // integers past 2^53 arrive as BigInt, never rounded
// The access policy's pseudonym (src/policy/masked-view.ts): the same digits as MySQL's LEFT(SHA2(CONCAT(k, v)), 16).
db.function('tally_pseudonym', { deterministic: true }, (key, value) =>
  value === null ? null : createHash('sha256').update(`${key}${value}`).digest('hex').slice(0, 16),
);

/** @type {IterableIterator<unknown[]> | null} */
let iterator = null;
/** Columns of the open statement. */
let width = 0;

/**
 * Integers that fit a double exactly as numbers, larger ones kept as BigInt: done here, in the
 * worker, BigInts neither cross to the main thread (cloning them costs) nor get converted there.
 * @param {unknown} value
 */
function narrow(value) {
  return typeof value === 'bigint' && value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

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
      width = columns.length;
      iterator = /** @type {IterableIterator<unknown[]>} */ (statement.iterate());
      parentPort?.postMessage({ op: 'columns', columns });
    } else if (message.op === 'next') {
      // Column-major: a few long arrays cross to the main thread, not one small array per row.
      /** @type {unknown[][]} */
      const columns = Array.from({ length: width }, () => []);
      let count = 0;
      let done = iterator === null;
      while (!done && count < message.rows) {
        const next = /** @type {IterableIterator<unknown[]>} */ (iterator).next();
        if (next.done) done = true;
        else {
          const row = next.value;
          for (let index = 0; index < width; index++)
            /** @type {unknown[]} */ (columns[index]).push(narrow(row[index]));
          count += 1;
        }
      }
      if (done) iterator = null;
      parentPort?.postMessage({ op: 'rows', columns, count, done });
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
