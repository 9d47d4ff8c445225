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
 */
import type { ColumnEncoding } from '../column-kind.js';
import { chunkBuffer } from './chunk-buffers.js';
import { NotThisKind, parseDateTime, parseTime } from './parse-temporal.js';

export type SegmentEncoding = 'f8' | 'i8f' | 'i8' | 'u8' | 'b1' | 'M8' | 'm8' | 'dict';

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

/** One column of a chunk, encoded, before it is laid out in the chunk's buffer. */
export type Encoded = {
  encoding: SegmentEncoding;
  values: Uint8Array;
  mask?: Uint8Array;
  dictionary?: Uint8Array;
  binary?: boolean;
  terminated?: boolean;
};

/** A column's values, one per row: what the encoders read. */
export type Column = ArrayLike<unknown>;

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

function encodeFloats(rows: Column): Encoded {
  const values = new Float64Array(rows.length);
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row];
    values[row] = value === null || value === undefined ? Number.NaN : toNumber(value);
  }
  return { encoding: 'f8', values: bytes(values) };
}

function encodeIntegers(rows: Column): Encoded {
  const values = new Float64Array(rows.length);
  let mask: Uint8Array | undefined;
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row];
    if (value === null || value === undefined) {
      mask ??= new Uint8Array(rows.length);
      mask[row] = 1;
      continue;
    }
    const number = toNumber(value);
    if (!Number.isSafeInteger(number)) {
      if (Number.isInteger(number) || typeof value === 'bigint' || typeof value === 'string') return encodeWide(rows);
      return encodeFloats(rows); // SQLite lets an INTEGER column hold 2.5
    }
    values[row] = number;
  }
  return { encoding: 'i8f', values: bytes(values), ...(mask ? { mask } : {}) };
}

function encodeWide(rows: Column): Encoded {
  const parsed = Array.from(rows, (value) => {
    if (value === null || value === undefined) return null;
    try {
      if (value instanceof Uint8Array) return BigInt(`0x${Buffer.from(value).toString('hex') || '0'}`);
      return BigInt(value as string | number | bigint);
    } catch {
      throw new NotThisKind();
    }
  });
  const unsigned = parsed.some((value) => value !== null && value > 0x7fffffffffffffffn);
  const values = unsigned ? new BigUint64Array(rows.length) : new BigInt64Array(rows.length);
  const mask = new Uint8Array(rows.length);
  parsed.forEach((value, row) => {
    if (value === null) mask[row] = 1;
    else values[row] = value;
  });
  return { encoding: unsigned ? 'u8' : 'i8', values: bytes(values), ...(mask.includes(1) ? { mask } : {}) };
}

function encodeBooleans(rows: Column): Encoded {
  const values = new Uint8Array(rows.length);
  let mask: Uint8Array | undefined;
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row];
    if (value === null || value === undefined) {
      mask ??= new Uint8Array(rows.length);
      mask[row] = 1;
    } else {
      const number = value instanceof Uint8Array ? (value[value.length - 1] ?? 0) : toNumber(value);
      if (number !== 0 && number !== 1) throw new NotThisKind();
      values[row] = number;
    }
  }
  return { encoding: 'b1', values, ...(mask ? { mask } : {}) };
}

function encodeMicros(rows: Column, encoding: 'M8' | 'm8', parse: (value: unknown) => number): Encoded {
  const values = new Float64Array(rows.length);
  // Dates repeat (a day column has a few thousand values): parse each distinct string once per chunk.
  // Timestamps mostly do not: once the first 1024 values show few repeats, parse without the cache.
  let seen: Map<unknown, number> | undefined = new Map<unknown, number>();
  let hits = 0;
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row];
    if (value === null || value === undefined) {
      values[row] = Number.NaN;
      continue;
    }
    let micros = seen?.get(value);
    if (micros === undefined) {
      micros = parse(value);
      if (seen && seen.size < 4096) seen.set(value, micros);
    } else hits += 1;
    values[row] = micros;
    if (row === 1024 && hits < 256) seen = undefined;
  }
  return { encoding, values: bytes(values) };
}

function encodeDictionary(rows: Column, binary: boolean): Encoded {
  const codes = new Int32Array(rows.length);
  const lookup = new Map<string, number>();
  const entries: string[] = [];
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row];
    if (value === null || value === undefined) {
      codes[row] = -1;
      continue;
    }
    const text = toText(value, binary);
    let code = lookup.get(text);
    if (code === undefined) {
      // Mostly distinct values (names, ids): a dictionary only costs time. Store them in row order.
      if (row === 1024 && entries.length > 768) return encodePlain(rows, binary);
      code = entries.length;
      entries.push(text);
      lookup.set(text, code);
    }
    codes[row] = code;
  }
  return dictEncoded(codes, entries, binary);
}

/** The `dict` encoding with one entry per row (codes 0..n-1, -1 for NULL). */
function encodePlain(rows: Column, binary: boolean): Encoded {
  const codes = new Int32Array(rows.length);
  const entries: string[] = [];
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row];
    if (value === null || value === undefined) codes[row] = -1;
    else {
      codes[row] = entries.length;
      entries.push(toText(value, binary));
    }
  }
  return dictEncoded(codes, entries, binary);
}

/** Entries ending in NUL when none holds one (as the MySQL reader writes them), JSON otherwise. */
function dictEncoded(codes: Int32Array, entries: string[], binary: boolean): Encoded {
  const values = bytes(codes);
  if (binary || entries.some((entry) => entry.includes('\0'))) {
    return { encoding: 'dict', values, dictionary: Buffer.from(JSON.stringify(entries)), binary };
  }
  const dictionary = entries.length === 0 ? Buffer.alloc(0) : Buffer.from(`${entries.join('\0')}\0`);
  return { encoding: 'dict', values, dictionary, terminated: true };
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

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.trim() !== '') {
    const number = Number(value);
    if (!Number.isNaN(number)) return number;
  }
  throw new NotThisKind();
}

function toText(value: unknown, binary: boolean): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) {
    const buffer = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return binary ? buffer.toString('base64') : buffer.toString('utf8');
  }
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function bytes(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}
