/**
 * A batch of rows from sqlite-worker.js, column by column, and its encoding into an extract chunk.
 * A column whose values in the batch are all numbers or NULL arrives as a Float64Array and a NULL
 * mask, moved across threads without a copy and without a JavaScript value per cell; any other
 * column arrives as its values. The common numeric kinds are laid out straight from the array;
 * everything else goes through `encodeColumn` as plain values, so the chunk is byte for byte what
 * encoding the rows themselves would give.
 */
import type { ColumnEncoding } from '../column-kind.js';
import { type EncodedChunk, type EncodeOptions, encodeColumn, packChunk } from '../extract/encode-chunk.js';
import type { Encoded } from '../extract/encoded-column.js';

/** One column of a batch: numbers (0 under a NULL, `nulls` 1 there) or the driver's values. */
export type SqliteColumn = { numbers: Float64Array; nulls?: Uint8Array } | { values: unknown[] };

export interface SqliteBatch {
  columns: SqliteColumn[];
  rows: number;
}

/** The column's values as the driver gives them: numbers, BigInt past 2^53, text, Buffers, null. */
export function columnValues(column: SqliteColumn, rows: number): unknown[] {
  if ('values' in column) return column.values;
  const { numbers, nulls } = column;
  const values = new Array<unknown>(rows);
  for (let row = 0; row < rows; row++) values[row] = nulls?.[row] ? null : numbers[row];
  return values;
}

/** The batch as rows, for previews and metadata. */
export function batchRows(batch: SqliteBatch): unknown[][] {
  const columns = batch.columns.map((column) => columnValues(column, batch.rows));
  return Array.from({ length: batch.rows }, (_, row) => columns.map((values) => values[row]));
}

export function encodeSqliteBatch(
  batch: SqliteBatch,
  encodings: ColumnEncoding[],
  options: EncodeOptions,
): EncodedChunk {
  return packChunk(
    encodings.map((encoding, index) => {
      const column = batch.columns[index] ?? { values: [] };
      if ('numbers' in column) {
        const fast = encodeNumbers(column.numbers.subarray(0, batch.rows), column.nulls, encoding, options);
        if (fast) return fast;
      }
      return encodeColumn(columnValues(column, batch.rows), encoding, options);
    }),
    batch.rows,
  );
}

/**
 * Integers that a double holds exactly as `i8f` and floats as `f8`, as encodeColumn lays them out
 * (0 under a NULL in `i8f`, whose mask marks it; NaN for NULL in `f8`); undefined for any other
 * case, which the caller encodes from the values. The arrays are the worker's, used in place.
 */
function encodeNumbers(
  numbers: Float64Array,
  nulls: Uint8Array | undefined,
  encoding: ColumnEncoding,
  options: EncodeOptions,
): Encoded | undefined {
  const { kind } = encoding;
  const rows = numbers.length;
  const values = new Uint8Array(numbers.buffer, numbers.byteOffset, numbers.byteLength);
  if (kind === 'float' || (kind === 'decimal' && !options.exactDecimals)) {
    if (nulls) for (let row = 0; row < rows; row++) if (nulls[row]) numbers[row] = Number.NaN;
    return { encoding: 'f8', values };
  }
  if (kind !== 'integer' && kind !== 'dynamic') return undefined;
  // Past 2^53, or a fraction (SQLite lets an INTEGER column hold 2.5): encodeColumn decides.
  for (let row = 0; row < rows; row++) if (!Number.isSafeInteger(numbers[row])) return undefined;
  return { encoding: 'i8f', values, ...(nulls ? { mask: nulls.subarray(0, rows) } : {}) };
}
