/**
 * Byte-level helpers for the column builders: numbers and dates read from ASCII bytes without
 * making a string, and JSON written from UTF-8 bytes. Every fast path gives exactly what the string
 * path (Number(), parseDateTime) gives, and says `undefined` (or NaN) where it cannot, so the
 * caller takes the string path instead.
 */
import { daysFromCivil } from './parse-temporal.js';

export function bytesOf(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

const HEX = Buffer.from('0123456789abcdef');

/** A growing byte buffer, reused from chunk to chunk. */
export class ByteSink {
  buffer = Buffer.allocUnsafe(1 << 16);
  length = 0;

  ensure(more: number): void {
    if (this.length + more <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + more));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  byte(value: number): void {
    this.ensure(1);
    this.buffer[this.length++] = value;
  }

  /** `source[start, end)` (UTF-8) as a JSON string literal. */
  jsonString(source: Uint8Array, start: number, end: number): void {
    this.ensure((end - start) * 6 + 2);
    const target = this.buffer;
    let out = this.length;
    target[out++] = 0x22;
    for (let at = start; at < end; at++) {
      const byte = source[at] as number;
      if (byte >= 0x20 && byte !== 0x22 && byte !== 0x5c) target[out++] = byte;
      else out = writeEscaped(target, out, byte);
    }
    target[out++] = 0x22;
    this.length = out;
  }

  /** `source[start, end)` and a NUL byte after it; false when the bytes hold a NUL themselves. */
  terminated(source: Uint8Array, start: number, end: number): boolean {
    this.ensure(end - start + 1);
    const target = this.buffer;
    let out = this.length;
    let clean = true;
    for (let at = start; at < end; at++) {
      const byte = source[at] as number;
      if (byte === 0) clean = false;
      target[out++] = byte;
    }
    target[out++] = 0;
    this.length = out;
    return clean;
  }

  view(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

function writeEscaped(target: Buffer, at: number, byte: number): number {
  let out = at;
  target[out++] = 0x5c;
  if (byte === 0x22 || byte === 0x5c) {
    target[out++] = byte;
    return out;
  }
  target[out++] = 0x75; // \u00XX
  target[out++] = 0x30;
  target[out++] = 0x30;
  target[out++] = HEX[byte >> 4] as number;
  target[out++] = HEX[byte & 15] as number;
  return out;
}

const POW10 = Array.from({ length: 23 }, (_, power) => 10 ** power);

/**
 * The number in ASCII `buffer[start, end)`, as Number() reads it; NaN when it is none. Up to 15
 * digits and no exponent, digits / 10^scale is one correctly rounded division, equal to Number().
 */
export function parseNumber(buffer: Uint8Array, start: number, end: number): number {
  if (end <= start) return Number.NaN;
  let at = start;
  const negative = buffer[at] === 0x2d;
  if (negative) at += 1;
  let mantissa = 0;
  let digits = 0;
  let scale = -1;
  for (; at < end; at++) {
    const code = buffer[at] as number;
    if (code === 0x2e && scale < 0) {
      scale = 0;
      continue;
    }
    const digit = code - 48;
    if (digit < 0 || digit > 9) break;
    mantissa = mantissa * 10 + digit;
    digits += 1;
    if (scale >= 0) scale += 1;
  }
  if (at === end && digits > 0 && digits <= 15) {
    const value = scale > 0 ? mantissa / (POW10[scale] as number) : mantissa;
    return negative ? -value : value;
  }
  return Number(Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength).toString('latin1', start, end));
}

/** The two ASCII digits at `at` as a number, or a negative one (or > 99) when they are not digits. */
function twoDigits(buffer: Uint8Array, at: number): number {
  const high = (buffer[at] as number) - 48;
  const low = (buffer[at + 1] as number) - 48;
  return high >>> 0 > 9 || low >>> 0 > 9 ? -1 : high * 10 + low;
}

/**
 * 'YYYY-MM-DD' and 'YYYY-MM-DD HH:MM:SS[.ffffff]' as microseconds since 1970 (NaN for MySQL's zero
 * dates), like parseDateTime; `undefined` for any other shape.
 */
export function parseMicros(buffer: Uint8Array, start: number, end: number): number | undefined {
  const length = end - start;
  if (length !== 10 && !(length >= 19 && length <= 26 && buffer[start + 10] === 0x20)) return undefined;
  if (buffer[start + 4] !== 0x2d || buffer[start + 7] !== 0x2d) return undefined;
  const century = twoDigits(buffer, start);
  const yearOfCentury = twoDigits(buffer, start + 2);
  const month = twoDigits(buffer, start + 5);
  const day = twoDigits(buffer, start + 8);
  if (century < 0 || yearOfCentury < 0 || month < 0 || day < 0) return undefined;
  const year = century * 100 + yearOfCentury;
  if (year === 0 || month === 0 || day === 0) return Number.NaN;
  if (month > 12 || day > 31) return undefined;
  let seconds = daysFromCivil(year, month, day) * 86_400;
  let micros = 0;
  if (length > 10) {
    if (buffer[start + 13] !== 0x3a || buffer[start + 16] !== 0x3a) return undefined;
    const hour = twoDigits(buffer, start + 11);
    const minute = twoDigits(buffer, start + 14);
    const second = twoDigits(buffer, start + 17);
    if (hour < 0 || minute < 0 || second < 0) return undefined;
    seconds += hour * 3600 + minute * 60 + second;
    if (length > 19) {
      if (buffer[start + 19] !== 0x2e || length === 20) return undefined;
      let fraction = 0;
      for (let at = start + 20; at < end; at++) {
        const digit = (buffer[at] as number) - 48;
        if (digit >>> 0 > 9) return undefined;
        fraction = fraction * 10 + digit;
      }
      micros = fraction * (POW10[26 - length] as number);
    }
  }
  return seconds * 1_000_000 + micros;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** Microseconds back to the text MySQL sent (for a chunk that leaves the fast path). */
export function microsToText(micros: number, kind: string): string {
  if (kind === 'time') {
    const total = Math.abs(micros);
    const fraction = total % 1_000_000;
    const seconds = (total - fraction) / 1_000_000;
    const clock = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
    return `${micros < 0 ? '-' : ''}${clock}${fraction ? `.${pad(fraction, 6)}` : ''}`;
  }
  if (Number.isNaN(micros)) return kind === 'date' ? '0000-00-00' : '0000-00-00 00:00:00';
  const days = Math.floor(micros / 86_400_000_000);
  const rest = micros - days * 86_400_000_000;
  const date = new Date(days * 86_400_000);
  const day = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  if (kind === 'date' && rest === 0) return day;
  return `${day} ${microsToText(rest, 'time')}`;
}
