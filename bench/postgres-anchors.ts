/**
 * What the PostgreSQL extraction is measured against and broken down by, each on a connection of its own:
 * raw pg streaming (every row made as an array and dropped), the floor (the bytes of `COPY (query) TO
 * STDOUT` read and dropped unparsed), and our columnar read alone (those bytes into encoded chunks by
 * `postgres-rows.ts`, the chunks' memory reused as the extraction does).
 */
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { releaseChunkBuffer } from '../src/db/extract/chunk-buffers.js';
import { copyRows } from '../src/db/postgres/postgres-rows.js';
import type { Timed } from './extract-anchors.js';

/** Date and time types kept as the server's text, as the MariaDB anchor asks mysql2 (`dateStrings`). */
const TEXT_TYPES = new Set([1082, 1083, 1114, 1184]); // date, time, timestamp, timestamptz
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    TEXT_TYPES.has(oid)
      ? (value: string) => value
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * The settings PostgresDatabase opens every statement with (its `transactionStart`): they decide the text
 * COPY writes, so the floor and our read alone see the same bytes as the extraction.
 */
const SESSION = [
  'BEGIN READ ONLY',
  "SET LOCAL TimeZone = 'UTC'",
  "SET LOCAL DateStyle = 'ISO, YMD'",
  "SET LOCAL IntervalStyle = 'postgres'",
  "SET LOCAL bytea_output = 'hex'",
  'SET LOCAL extra_float_digits = 1',
].join('; ');

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * The anchor: pg's own query with `rowMode: 'array'` and a 'row' listener, so pg parses each DataRow into
 * an array of values with its type parsers and, with a listener, keeps none (simple protocol, one round
 * trip). Faster than pg-cursor reading in batches: 1.7-2.2 s against 3.0-4.4 s for 1M x 10 with batches of
 * 1k, 10k or 100k rows on the 2-core machine, as the cursor keeps every batch and asks for the next.
 */
export function rawPgStream(url: string, sql: string): Promise<Timed> {
  return withClient(url, async (client) => {
    const started = performance.now();
    let rows = 0;
    await new Promise<void>((resolve, reject) => {
      const config: pg.QueryArrayConfig = { text: sql, rowMode: 'array', types };
      const query = client.query(new pg.Query(config));
      query.on('row', () => {
        rows += 1;
      });
      query.on('error', reject);
      query.on('end', () => resolve());
    });
    return { seconds: (performance.now() - started) / 1000, rows };
  });
}

export interface CopyTimed {
  seconds: number;
  /** Bytes of COPY text; rows are not counted, since finding them is already parsing. */
  bytes: number;
}

/** The server running `COPY (query) TO STDOUT` and pg-copy-streams passing the bytes on, nothing parsed. */
export function postgresFloor(url: string, sql: string): Promise<CopyTimed> {
  return withClient(url, async (client) => {
    await client.query(SESSION);
    const started = performance.now();
    let bytes = 0;
    for await (const data of client.query(copyTo(`COPY (${sql}) TO STDOUT`))) bytes += (data as Buffer).length;
    const seconds = (performance.now() - started) / 1000;
    await client.query('COMMIT');
    return { seconds, bytes };
  });
}

/**
 * Our read alone: the extraction's `copyRows` (the statement's columns from a `LIMIT 0` run and the
 * catalog, then the COPY text into encoded chunks), the chunks dropped once counted.
 */
export function postgresColumnarRead(url: string, sql: string): Promise<Timed> {
  return withClient(url, async (client) => {
    await client.query(SESSION);
    const started = performance.now();
    // copyRows takes a pool's client; it calls nothing a plain client lacks.
    const source = await copyRows(client as pg.PoolClient, sql, async () => {}, { exactDecimals: false });
    let rows = 0;
    for await (const chunk of source.chunks ?? []) {
      rows += chunk.rows;
      releaseChunkBuffer(chunk.data); // as the extraction does once the part is written
    }
    const seconds = (performance.now() - started) / 1000;
    await client.query('COMMIT');
    return { seconds, rows };
  });
}
