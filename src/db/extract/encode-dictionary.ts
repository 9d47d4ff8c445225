/**
 * The `dict` encoding of a chunk's column (see encode-chunk.ts): int32 codes (-1 for NULL) and the
 * distinct values as text, for text, JSON, exact decimals and binary (as base64), and for any column
 * a value of which does not fit its kind. Mostly distinct values are stored one entry per row.
 */
import { bytesOf } from './column-bytes.js';
import type { Column, Encoded } from './encoded-column.js';

export function encodeDictionary(rows: Column, binary: boolean): Encoded {
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
  const values = bytesOf(codes);
  if (binary || entries.some((entry) => entry.includes('\0'))) {
    return { encoding: 'dict', values, dictionary: Buffer.from(JSON.stringify(entries)), binary };
  }
  const dictionary = entries.length === 0 ? Buffer.alloc(0) : Buffer.from(`${entries.join('\0')}\0`);
  return { encoding: 'dict', values, dictionary, terminated: true };
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
