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

type Encoded = {
  encoding: SegmentEncoding;
  values: Uint8Array;
  mask?: Uint8Array;
  dictionary?: Buffer;
  binary?: boolean;
};

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
      if (Number.isInteger(number) || typeof value === 'bigint' || typeof value === 'string')
        return encodeWide(rows, index);
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
  // Dates repeat (a day column has a few thousand values): parse each distinct string once per chunk.
  const seen = new Map<unknown, number>();
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row]?.[index];
    if (value === null || value === undefined) {
      values[row] = Number.NaN;
      continue;
    }
    let micros = seen.get(value);
    if (micros === undefined) {
      micros = parse(value);
      if (seen.size < 4096) seen.set(value, micros);
    }
    values[row] = micros;
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
      // Mostly distinct values (names, ids): a dictionary only costs time. Store them in row order.
      if (row === 1024 && entries.length > 768) return encodePlain(rows, index, binary);
      code = entries.length;
      entries.push(text);
      lookup.set(text, code);
    }
    codes[row] = code;
  }
  return { encoding: 'dict', values: bytes(codes), dictionary: Buffer.from(JSON.stringify(entries)), binary };
}

/** The `dict` encoding with one entry per row (codes 0..n-1, -1 for NULL). */
function encodePlain(rows: unknown[][], index: number, binary: boolean): Encoded {
  const codes = new Int32Array(rows.length);
  const entries: string[] = [];
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row]?.[index];
    if (value === null || value === undefined) codes[row] = -1;
    else {
      codes[row] = entries.length;
      entries.push(toText(value, binary));
    }
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

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

const digit = (text: string, at: number) => text.charCodeAt(at) - 48;
const digits2 = (text: string, at: number) => digit(text, at) * 10 + digit(text, at + 1);
const DATE_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9];
const TIME_DIGITS = [11, 12, 14, 15, 17, 18];

function digitsAt(text: string, positions: number[]): boolean {
  for (const at of positions) {
    const code = text.charCodeAt(at);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** Microseconds since 1970 (UTC, or the wall-clock time as stored when no zone is given). */
function parseDateTime(value: unknown): number {
  if (value instanceof Date) return value.getTime() * 1000;
  if (typeof value !== 'string') throw new NotThisKind();
  // The shapes MySQL sends with dateStrings: 'YYYY-MM-DD' and 'YYYY-MM-DD HH:MM:SS[.ffffff]'.
  const plain = value.length === 10 || (value.length >= 19 && value.length <= 26 && value[10] === ' ');
  if (
    plain &&
    value[4] === '-' &&
    value[7] === '-' &&
    digitsAt(value, DATE_DIGITS) &&
    (value.length === 10 || (value[13] === ':' && value[16] === ':' && digitsAt(value, TIME_DIGITS)))
  ) {
    const year = digit(value, 0) * 1000 + digit(value, 1) * 100 + digits2(value, 2);
    const month = digits2(value, 5);
    const day = digits2(value, 8);
    if (year === 0 || month === 0 || day === 0) return Number.NaN; // MySQL zero dates
    let seconds = daysFromCivil(year, month, day) * 86_400;
    let micros = 0;
    if (value.length > 10) {
      seconds += digits2(value, 11) * 3600 + digits2(value, 14) * 60 + digits2(value, 17);
      if (value.length > 20) micros = value[19] === '.' ? Number(value.slice(20).padEnd(6, '0')) : Number.NaN;
    }
    const result = seconds * 1_000_000 + micros;
    if (Number.isFinite(result) && month <= 12 && day <= 31) return result;
  }
  const match = DATE_TIME.exec(value);
  if (match === null) throw new NotThisKind();
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone] = match;
  if (year === '0000' || month === '00' || day === '00') return Number.NaN;
  let millis = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  if (zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const offset = zone.slice(1).replace(':', '');
    millis -= sign * (Number(offset.slice(0, 2)) * 60 + Number(offset.slice(2))) * 60_000;
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
