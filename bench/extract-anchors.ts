/**
 * What the extraction is measured against and broken down by, each on its own connection: the raw
 * mysql2 stream (rows made and dropped), the server's floor (row packets framed by mysql2 and
 * dropped unparsed), our columnar read alone (packets to encoded chunks, their memory reused), and
 * better-sqlite3 iterating raw rows.
 */
import BetterSqlite from 'better-sqlite3';
import mysql from 'mysql2';
import { releaseChunkBuffer } from '../src/db/extract/chunk-buffers.js';
import { streamMysqlRows } from '../src/db/mysql/mysql-rows.js';

export interface Timed {
  seconds: number;
  rows: number;
}

function connect(url: string): mysql.Connection {
  return mysql.createConnection({ uri: url, dateStrings: true, supportBigNumbers: true, charset: 'utf8mb4' });
}

function timed(run: (done: (rows: number) => void, fail: (error: Error) => void) => void): Promise<Timed> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    run((rows) => resolve({ seconds: (performance.now() - started) / 1000, rows }), reject);
  });
}

/** The anchor of issue 15: mysql2's own streaming of the query, every row made and dropped. */
export async function rawMysqlStream(url: string, sql: string): Promise<Timed> {
  const connection = connect(url);
  try {
    return await timed((done, fail) => {
      let rows = 0;
      connection
        .query({ sql, rowsAsArray: true })
        .stream({ highWaterMark: 4096 })
        .on('data', () => {
          rows += 1;
        })
        .on('error', fail)
        .on('end', () => done(rows));
    });
  } finally {
    connection.end();
  }
}

/** The server sending the rows and mysql2 framing the packets, nothing parsed: the floor for any client. */
export async function mysqlFloor(url: string, sql: string): Promise<Timed> {
  const connection = connect(url);
  try {
    return await timed((done, fail) => {
      let rows = 0;
      const query = connection.query({ sql, rowsAsArray: true });
      const parser = {
        next: () => {
          rows += 1;
        },
      };
      query.once('fields', () => {
        // The same hook as mysql-rows.ts: a plain property once mysql2 has assigned its own parser.
        Object.defineProperty(query, '_rowParser', {
          configurable: true,
          get: () => parser,
          set: () => Object.defineProperty(query, '_rowParser', { value: parser, writable: true, configurable: true }),
        });
      });
      query.on('error', fail).on('end', () => done(rows));
    });
  } finally {
    connection.end();
  }
}

/** Our read alone: row packets into encoded chunks (mysql-rows.ts, columnar), the chunks dropped. */
export async function columnarRead(url: string, sql: string): Promise<Timed> {
  const connection = connect(url);
  try {
    const started = performance.now();
    const source = await streamMysqlRows(connection, sql, async () => {}, undefined, { exactDecimals: false });
    let rows = 0;
    for await (const chunk of source.chunks ?? []) {
      rows += chunk.rows;
      releaseChunkBuffer(chunk.data); // as the extraction does once the part is written
    }
    return { seconds: (performance.now() - started) / 1000, rows };
  } finally {
    connection.end();
  }
}

/** better-sqlite3 iterating the statement's raw rows, on this thread: the SQLite driver alone. */
export function rawSqlite(path: string, sql: string): Timed {
  const file = new BetterSqlite(path, { readonly: true, fileMustExist: true });
  try {
    file.defaultSafeIntegers(true);
    const started = performance.now();
    let rows = 0;
    for (const _row of file.prepare(sql).raw(true).iterate()) rows += 1;
    return { seconds: (performance.now() - started) / 1000, rows };
  } finally {
    file.close();
  }
}
