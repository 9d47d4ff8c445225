/**
 * One streaming SELECT on a mysql2 connection: its columns, its rows in batches with backpressure,
 * and a way to stop it early that also stops it on the server.
 */
import type { Connection, FieldPacket } from 'mysql2';
import { type ExtractColumn, CHUNK_ROWS } from './extract/extract-into-kernel.js';
import { mysqlColumnEncoding } from './column-kind.js';

export interface MysqlRowStream {
  columns: ExtractColumn[];
  batches: AsyncIterable<unknown[][]>;
  cancel(): Promise<void>;
}

/** Starts `sql` and resolves once its column definitions have arrived. */
export function streamMysqlRows(
  connection: Connection,
  sql: string,
  onCancel: () => Promise<void>,
  batchRows = CHUNK_ROWS,
): Promise<MysqlRowStream> {
  const query = connection.query({ sql, rowsAsArray: true });
  const stream = query.stream({ highWaterMark: 4096 });
  // Errors reach the reader through the stream's iterator; these keep a late one (after a cancel
  // or a timeout, when nobody reads any more) from becoming an unhandled 'error' event.
  query.on('error', () => {});
  stream.on('error', () => {});
  let cancelled = false;
  const cancel = async () => {
    if (cancelled) return;
    cancelled = true;
    stream.destroy();
    await onCancel();
  };
  async function* batches(): AsyncGenerator<unknown[][]> {
    let batch: unknown[][] = [];
    for await (const row of stream) {
      if (!Array.isArray(row)) continue; // the OK packet of a statement without a result set
      batch.push(row);
      if (batch.length >= batchRows) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => reject(error);
    stream.once('error', fail);
    // 'fields' comes first: with the column definitions, or undefined for a statement without rows.
    query.once('fields', (fields: FieldPacket[] | undefined) => {
      stream.off('error', fail);
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
