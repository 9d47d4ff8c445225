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
 *   dict  int32 codes (-1 = NULL) + JSON array of strings (text, JSON, exact decimals, binary as base64)
 * A value that does not fit its column's kind turns that column of that chunk into `dict`.
 */
import type { ColumnEncoding } from '../column-kind.js';

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

type Encoded = { encoding: SegmentEncoding; values: Uint8Array; mask?: Uint8Array; dictionary?: Buffer; binary?: boolean };

class NotThisKind extends Error {}

export function encodeChunk(rows: unknown[][], encodings: ColumnEncoding[], options: EncodeOptions): EncodedChunk {
  const parts: Uint8Array[] = [];
  let size = 0;
  const place = (bytes: Uint8Array): Segment => {
    const padding = (8 - (size % 8)) % 8;
    if (padding > 0) parts.push(new Uint8Array(padding));
    size += padding;
    const segment = { offset: size, length: bytes.byteLength };
    parts.push(bytes);
    size += bytes.byteLength;
    return segment;
  };
  const columns = encodings.map((encoding, index) => {
    const encoded = encodeColumn(rows, index, encoding, options);
    const column: ChunkColumn = { encoding: encoded.encoding, values: place(encoded.values) };
    if (encoded.mask) column.mask = place(encoded.mask);
    if (encoded.dictionary) column.dictionary = place(encoded.dictionary);
    if (encoded.binary) column.binary = true;
    return column;
  });
  return { data: Buffer.concat(parts, size), rows: rows.length, columns };
}

function encodeColumn(rows: unknown[][], index: number, encoding: ColumnEncoding, options: EncodeOptions): Encoded {
  try {
    switch (encoding.kind) {
      case 'integer':
        return encodeIntegers(rows, index);
      case 'float':
        return encodeFloats(rows, index);
      case 'decimal':
        return options.exactDecimals ? encodeDictionary(rows, index, false) : encodeFloats(rows, index);
      case 'boolean':
        return encodeBooleans(rows, index);
      case 'date':
      case 'datetime':
        return encodeMicros(rows, index, 'M8', parseDateTime);
      case 'time':
        return encodeMicros(rows, index, 'm8', parseTime);
      case 'binary':
        return encodeDictionary(rows, index, true);
      case 'dynamic':
        return encodeDynamic(rows, index);
      default:
        return encodeDictionary(rows, index, false);
    }
  } catch (error) {
    if (error instanceof NotThisKind) return encodeDictionary(rows, index, false);
    throw error;
  }
}

function encodeFloats(rows: unknown[][], index: number): Encoded {
  const values = new Float64Array(rows.length);
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row]?.[index];
    values[row] = value === null || value === undefined ? Number.NaN : toNumber(value);
  }
  return { encoding: 'f8', values: bytes(values) };
}

function encodeIntegers(rows: unknown[][], index: number): Encoded {
  const values = new Float64Array(rows.length);
  let mask: Uint8Array | undefined;
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row]?.[index];
    if (value === null || value === undefined) {
      mask ??= new Uint8Array(rows.length);
      mask[row] = 1;
      continue;
    }
    const number = toNumber(value);
    if (!Number.isSafeInteger(number)) {
      if (Number.isInteger(number) || typeof value === 'bigint' || typeof value === 'string') return encodeWide(rows, index);
      return encodeFloats(rows, index); // SQLite lets an INTEGER column hold 2.5
    }
    values[row] = number;
  }
  return { encoding: 'i8f', values: bytes(values), ...(mask ? { mask } : {}) };
}

function encodeWide(rows: unknown[][], index: number): Encoded {
  const parsed = rows.map((row) => {
    const value = row[index];
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

function encodeBooleans(rows: unknown[][], index: number): Encoded {
  const values = new Uint8Array(rows.length);
  let mask: Uint8Array | undefined;
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row]?.[index];
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

function encodeMicros(
  rows: unknown[][],
  index: number,
  encoding: 'M8' | 'm8',
  parse: (value: unknown) => number,
): Encoded {
  const values = new Float64Array(rows.length);
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row]?.[index];
    values[row] = value === null || value === undefined ? Number.NaN : parse(value);
  }
  return { encoding, values: bytes(values) };
}

function encodeDictionary(rows: unknown[][], index: number, binary: boolean): Encoded {
  const codes = new Int32Array(rows.length);
  const lookup = new Map<string, number>();
  const entries: string[] = [];
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row]?.[index];
    if (value === null || value === undefined) {
      codes[row] = -1;
      continue;
    }
    const text = toText(value, binary);
    let code = lookup.get(text);
    if (code === undefined) {
      code = entries.length;
      entries.push(text);
      lookup.set(text, code);
    }
    codes[row] = code;
  }
  return { encoding: 'dict', values: bytes(codes), dictionary: Buffer.from(JSON.stringify(entries)), binary };
}

/** SQLite expressions carry no declared type: numbers stay numbers, anything else becomes text. */
function encodeDynamic(rows: unknown[][], index: number): Encoded {
  let integers = true;
  for (const row of rows) {
    const value = row[index];
    if (value === null || value === undefined) continue;
    if (typeof value === 'bigint') continue;
    if (typeof value !== 'number') return encodeDictionary(rows, index, false);
    if (!Number.isInteger(value)) integers = false;
  }
  return integers ? encodeIntegers(rows, index) : encodeFloats(rows, index);
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

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Microseconds since 1970 (UTC, or the wall-clock time as stored when no zone is given). */
function parseDateTime(value: unknown): number {
  if (value instanceof Date) return value.getTime() * 1000;
  const match = typeof value === 'string' ? DATE_TIME.exec(value) : null;
  if (match === null) throw new NotThisKind();
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone] = match;
  if (year === '0000' || month === '00' || day === '00') return Number.NaN; // MySQL zero dates
  let millis = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  if (zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    millis -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return millis * 1000 + Number(fraction.padEnd(6, '0'));
}

const TIME = /^(-)?(\d{1,3}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;

function parseTime(value: unknown): number {
  const match = typeof value === 'string' ? TIME.exec(value) : null;
  if (match === null) throw new NotThisKind();
  const [, minus, hours, minutes, seconds, fraction = ''] = match;
  const micros =
    ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1_000_000 + Number(fraction.padEnd(6, '0'));
  return minus ? -micros : micros;
}

function bytes(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}
