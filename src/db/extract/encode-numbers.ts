/**
 * The numeric encodings of a chunk's column (see encode-chunk.ts): `f8`, `i8f`, `i8`/`u8`, `b1`,
 * and the microsecond encodings `M8` and `m8`, each from the values a driver gave. A value that
 * does not fit throws NotThisKind, and encodeColumn turns the column into `dict` instead.
 */
import { bytesOf } from './column-bytes.js';
import type { Column, Encoded } from './encoded-column.js';
import { NotThisKind } from './parse-temporal.js';

export function encodeFloats(rows: Column): Encoded {
  const values = new Float64Array(rows.length);
  for (let row = 0; row < rows.length; row++) {
    const value = rows[row];
    values[row] = value === null || value === undefined ? Number.NaN : toNumber(value);
  }
  return { encoding: 'f8', values: bytesOf(values) };
}

export function encodeIntegers(rows: Column): Encoded {
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
  return { encoding: 'i8f', values: bytesOf(values), ...(mask ? { mask } : {}) };
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
  return { encoding: unsigned ? 'u8' : 'i8', values: bytesOf(values), ...(mask.includes(1) ? { mask } : {}) };
}

export function encodeBooleans(rows: Column): Encoded {
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

export function encodeMicros(rows: Column, encoding: 'M8' | 'm8', parse: (value: unknown) => number): Encoded {
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
  return { encoding, values: bytesOf(values) };
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
