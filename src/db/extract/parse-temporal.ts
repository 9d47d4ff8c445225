/**
 * Dates, datetimes and MySQL TIME values as microseconds, the way the kernel's loader expects them
 * (encode-chunk.ts): parsed from the shapes MySQL and SQLite send, with MySQL's zero dates as NaT.
 */

/** A value that does not fit its column's kind: the encoders turn that column of the chunk into text. */
export class NotThisKind extends Error {}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
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
export function parseDateTime(value: unknown): number {
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

export function parseTime(value: unknown): number {
  const match = typeof value === 'string' ? TIME.exec(value) : null;
  if (match === null) throw new NotThisKind();
  const [, minus, hours, minutes, seconds, fraction = ''] = match;
  const micros =
    ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1_000_000 + Number(fraction.padEnd(6, '0'));
  return minus ? -micros : micros;
}
