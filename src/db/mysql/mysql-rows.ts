/**
 * One streaming SELECT on a mysql2 connection: its columns, its rows in batches, and a way to stop
 * it early that also stops it on the server. Rows are gathered in the driver's own 'result' events
 * (async iteration per row costs more than parsing them), with the connection paused while the
 * consumer is a few batches behind, so memory stays bounded.
 *
 * For an extraction (`columnar`), rows go from the packets straight into encoded chunks
 * (MysqlTextColumns), and no row is ever made: the socket's bytes are framed here once the column
 * definitions are in (mysql-row-takeover.ts), and the driver's row parser is replaced for the rows
 * it still frames itself.
 */
import type { Connection, FieldPacket } from 'mysql2';
import { mysqlColumnEncoding } from '../column-kind.js';
import type { EncodedChunk, EncodeOptions } from '../extract/encode-chunk.js';
import { CHUNK_ROWS, type ExtractColumn } from '../extract/extract-into-kernel.js';
import { MysqlTextColumns, type RowPacket } from '../extract/mysql-text-columns.js';
import { takeOverRows } from './mysql-row-takeover.js';

export interface MysqlRowStream {
  columns: ExtractColumn[];
  /** Rows; empty when the stream is columnar. */
  batches: AsyncIterable<unknown[][]>;
  /** Encoded chunks, when the stream is columnar. */
  chunks?: AsyncIterable<EncodedChunk>;
  cancel(): Promise<void>;
}

/** Batches of rows (or encoded chunks, which are larger) ready before the connection is paused. */
const BATCHES_AHEAD = 4;
const CHUNKS_AHEAD = 2;

/** Starts `sql` and resolves once its column definitions have arrived. */
export function streamMysqlRows(
  connection: Connection,
  sql: string,
  onCancel: () => Promise<void>,
  batchRows = CHUNK_ROWS,
  columnar?: EncodeOptions,
): Promise<MysqlRowStream> {
  const query = connection.query({ sql, rowsAsArray: true });
  const ready: Array<unknown[][] | EncodedChunk> = [];
  const ahead = columnar ? CHUNKS_AHEAD : BATCHES_AHEAD;
  let batch: unknown[][] = [];
  let ended = false;
  let failure: Error | undefined;
  let paused = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };

  const deliver = (item: unknown[][] | EncodedChunk) => {
    ready.push(item);
    if (ready.length >= ahead && !paused) {
      paused = true;
      connection.pause();
    }
    notify();
  };
  let reader: MysqlTextColumns | undefined;
  /** Gives the socket back to mysql2, when the rows were taken over. */
  let giveBack: (() => void) | undefined;
  query.on('result', (row: unknown) => {
    if (!Array.isArray(row)) return; // the OK packet of a statement without a result set
    if (columnar) {
      failure ??= new Error('mysql2 parsed a row itself: its row parser hook (mysql-rows.ts) no longer applies');
      return;
    }
    batch.push(row);
    if (batch.length >= batchRows) {
      deliver(batch);
      batch = [];
    }
  });
  query.on('end', () => {
    giveBack?.();
    if (batch.length > 0) ready.push(batch);
    if (reader && reader.pending > 0) ready.push(reader.take());
    batch = [];
    ended = true;
    notify();
  });
  let cancelled = false;
  const cancel = async () => {
    if (cancelled) return;
    cancelled = true;
    ended = true;
    ready.length = 0;
    notify();
    await onCancel();
  };

  async function* drain(): AsyncGenerator<unknown[][] | EncodedChunk> {
    while (true) {
      const next = ready.shift();
      if (next) {
        if (paused && ready.length < ahead) {
          paused = false;
          connection.resume();
        }
        yield next;
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  }

  return new Promise((resolve, reject) => {
    let started = false;
    query.on('error', (error: Error) => {
      giveBack?.();
      failure ??= error;
      notify();
      if (!started) reject(error);
    });
    // 'fields' comes first: with the column definitions, or undefined for a statement without rows.
    query.once('fields', (fields: FieldPacket[] | undefined) => {
      started = true;
      const columns = (fields ?? []).map((field) => ({
        name: field.name,
        type: describeField(field),
        encoding: mysqlColumnEncoding(field as unknown as Parameters<typeof mysqlColumnEncoding>[0]),
      }));
      if (columnar && fields) {
        const columnReader = new MysqlTextColumns(
          columns.map((column) => column.encoding),
          columnar,
        );
        reader = columnReader;
        // mysql2 assigns its own row parser right after 'fields'; this one takes its place and
        // returns no row, so the driver emits nothing per row.
        const add = (packet: RowPacket) => {
          if (columnReader.add(packet)) deliver(columnReader.take());
        };
        const parser = { next: add };
        Object.defineProperty(query, '_rowParser', {
          configurable: true,
          get: () => parser,
          // mysql2's own parser arrives here once: from then on a plain property, read once per row.
          set: () => Object.defineProperty(query, '_rowParser', { value: parser, writable: true, configurable: true }),
        });
        giveBack = takeOverRows(connection, add);
        resolve({ columns, batches: emptyBatches(), chunks: drain() as AsyncIterable<EncodedChunk>, cancel });
        return;
      }
      resolve({ columns, batches: drain() as AsyncIterable<unknown[][]>, cancel });
    });
  });
}

function describeField(field: FieldPacket): string {
  const type = (field as { type?: number | string }).type;
  return typeof type === 'string' ? type.toLowerCase() : `mysql type ${field.columnType ?? type ?? '?'}`;
}

async function* emptyBatches(): AsyncGenerator<unknown[][]> {}
