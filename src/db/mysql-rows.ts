/**
 * One streaming SELECT on a mysql2 connection: its columns, its rows in batches, and a way to stop
 * it early that also stops it on the server. Rows are gathered in the driver's own 'result' events
 * (async iteration per row costs more than parsing them), with the connection paused while the
 * consumer is two batches behind, so memory stays bounded.
 */
import type { Connection, FieldPacket } from 'mysql2';
import { mysqlColumnEncoding } from './column-kind.js';
import { CHUNK_ROWS, type ExtractColumn } from './extract/extract-into-kernel.js';

export interface MysqlRowStream {
  columns: ExtractColumn[];
  batches: AsyncIterable<unknown[][]>;
  cancel(): Promise<void>;
}

const BATCHES_AHEAD = 4;

/** Starts `sql` and resolves once its column definitions have arrived. */
export function streamMysqlRows(
  connection: Connection,
  sql: string,
  onCancel: () => Promise<void>,
  batchRows = CHUNK_ROWS,
): Promise<MysqlRowStream> {
  const query = connection.query({ sql, rowsAsArray: true });
  const ready: unknown[][][] = [];
  let batch: unknown[][] = [];
  let ended = false;
  let failure: Error | undefined;
  let paused = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };

  query.on('result', (row: unknown) => {
    if (!Array.isArray(row)) return; // the OK packet of a statement without a result set
    batch.push(row);
    if (batch.length >= batchRows) {
      ready.push(batch);
      batch = [];
      if (ready.length >= BATCHES_AHEAD && !paused) {
        paused = true;
        connection.pause();
      }
      notify();
    }
  });
  query.on('end', () => {
    if (batch.length > 0) ready.push(batch);
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

  async function* batches(): AsyncGenerator<unknown[][]> {
    while (true) {
      const next = ready.shift();
      if (next) {
        if (paused && ready.length < BATCHES_AHEAD) {
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
      resolve({ columns, batches: batches(), cancel });
    });
  });
}

function describeField(field: FieldPacket): string {
  const type = (field as { type?: number | string }).type;
  return typeof type === 'string' ? type.toLowerCase() : `mysql type ${field.columnType ?? type ?? '?'}`;
}
