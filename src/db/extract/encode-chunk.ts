/**
 * Encodes a batch of rows into one compact binary chunk that the kernel's loader
 * (sandbox/kernel/tally_extract.py) turns into pandas columns with numpy.frombuffer: numbers as
 * little-endian arrays, text as per-chunk dictionaries with int32 codes. Pure and bounded: memory
 * is one chunk, whatever the size of the result.
 *
 * Encodings (each segment 8-byte aligned):
 *   f8    float64, NaN = NULL                          (floats, decimals)
 *   i8f   float64 holding exact integers, + mask       (integers that fit 2^53)
 *   i8    int64 (u8: uint64), + mask                   (BIGINT beyond 2^53)
 *   b1    uint8 0/1, + mask                            (booleans)
 *   M8    float64 microseconds since 1970, NaN = NaT   (dates, datetimes)
 *   m8    float64 microseconds, NaN = NaT              (MySQL TIME)
 *   dict  int32 codes (-1 = NULL) + the strings: a JSON array (text, JSON, exact decimals, binary as
 *         base64), or, marked `terminated`, UTF-8 entries each ending in a NUL byte (text with no NUL
 *         in it, from the MySQL reader: the kernel splits it in one call instead of parsing JSON)
 * A value that does not fit its column's kind turns that column of that chunk into `dict`.
 * This file picks each column's encoding and lays the chunk out; the encoders themselves are
 * encode-numbers.ts and encode-dictionary.ts.
 */
import type { ColumnEncoding } from '../column-kind.js';
import { chunkBuffer } from './chunk-buffers.js';
import { encodeDictionary } from './encode-dictionary.js';
import { encodeBooleans, encodeFloats, encodeIntegers, encodeMicros } from './encode-numbers.js';
import type { Column, Encoded, SegmentEncoding } from './encoded-column.js';
import { NotThisKind, parseDateTime, parseTime } from './parse-temporal.js';

export interface Segment {
  offset: number;
  length: number;
}

export interface ChunkColumn {
  encoding: SegmentEncoding;
  values: Segment;
  mask?: Segment;
  dictionary?: Segment;
  /** Dictionary entries are base64 of bytes. */
  binary?: boolean;
  /** The dictionary is UTF-8 entries, each ending in a NUL byte, not JSON. */
  terminated?: boolean;
}

export interface EncodedChunk {
  data: Buffer;
  rows: number;
  columns: ChunkColumn[];
}

export interface EncodeOptions {
  /** DECIMAL values as exact strings rather than float64. */
  exactDecimals: boolean;
}

export function encodeChunk(rows: unknown[][], encodings: ColumnEncoding[], options: EncodeOptions): EncodedChunk {
  return encodeColumns(
    encodings.map((_, index) => rows.map((row) => row[index])),
    rows.length,
    encodings,
    options,
  );
}

/** The same from columns (one array of values per column, `rows` long each). */
export function encodeColumns(
  columns: Column[],
  rows: number,
  encodings: ColumnEncoding[],
  options: EncodeOptions,
): EncodedChunk {
  return packChunk(
    encodings.map((encoding, index) => encodeColumn(columns[index] ?? [], encoding, options)),
    rows,
  );
}

/**
 * Lays encoded columns out in one buffer (from chunk-buffers.ts), each segment 8-byte aligned and
 * the padding zeroed. Copies: the inputs may be reused.
 */
export function packChunk(encoded: Encoded[], rows: number): EncodedChunk {
  let size = 0;
  const aligned = (length: number) => length + ((8 - (length % 8)) % 8);
  for (const column of encoded) {
    size += aligned(column.values.byteLength);
    if (column.mask) size += aligned(column.mask.byteLength);
    if (column.dictionary) size += aligned(column.dictionary.byteLength);
  }
  const data = chunkBuffer(size);
  let offset = 0;
  const place = (bytes: Uint8Array): Segment => {
    data.set(bytes, offset);
    const segment = { offset, length: bytes.byteLength };
    const next = offset + aligned(bytes.byteLength);
    data.fill(0, offset + bytes.byteLength, next);
    offset = next;
    return segment;
  };
  const columns = encoded.map((column) => {
    const placed: ChunkColumn = { encoding: column.encoding, values: place(column.values) };
    if (column.mask) placed.mask = place(column.mask);
    if (column.dictionary) placed.dictionary = place(column.dictionary);
    if (column.binary) placed.binary = true;
    if (column.terminated) placed.terminated = true;
    return placed;
  });
  return { data, rows, columns };
}

/** One column's values, in the encoding its kind asks for (or `dict` when a value does not fit). */
export function encodeColumn(rows: Column, encoding: ColumnEncoding, options: EncodeOptions): Encoded {
  try {
    switch (encoding.kind) {
      case 'integer':
        return encodeIntegers(rows);
      case 'float':
        return encodeFloats(rows);
      case 'decimal':
        return options.exactDecimals ? encodeDictionary(rows, false) : encodeFloats(rows);
      case 'boolean':
        return encodeBooleans(rows);
      case 'date':
      case 'datetime':
        return encodeMicros(rows, 'M8', parseDateTime);
      case 'time':
        return encodeMicros(rows, 'm8', parseTime);
      case 'binary':
        return encodeDictionary(rows, true);
      case 'dynamic':
        return encodeDynamic(rows);
      default:
        return encodeDictionary(rows, false);
    }
  } catch (error) {
    if (error instanceof NotThisKind) return encodeDictionary(rows, false);
    throw error;
  }
}

/** SQLite expressions carry no declared type: numbers stay numbers, anything else becomes text. */
function encodeDynamic(rows: Column): Encoded {
  let integers = true;
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row];
    if (value === null || value === undefined) continue;
    if (typeof value === 'bigint') continue;
    if (typeof value !== 'number') return encodeDictionary(rows, false);
    if (!Number.isInteger(value)) integers = false;
  }
  return integers ? encodeIntegers(rows) : encodeFloats(rows);
}
