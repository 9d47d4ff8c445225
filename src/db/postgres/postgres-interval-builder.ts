/**
 * `m8` for PostgreSQL intervals: microseconds, so pandas gets a timedelta64 column. Only intervals of
 * days and time are durations; one with months or years (`1 mon` is 28 to 31 days) is not, and turns its
 * column of that chunk into text, as any value that does not fit its kind does.
 */
import { MaskedBuilder } from '../extract/column-builder.js';
import { bytesOf } from '../extract/column-bytes.js';
import type { Encoded } from '../extract/encoded-column.js';

/** IntervalStyle `postgres`: `[-]N days [-]HH:MM:SS[.ffffff]`, either part optional. */
const INTERVAL = /^(?:(-?\d+) days? ?)?(?:([+-])?(\d+):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?$/;
const DAY_MICROS = 86_400_000_000;

export function intervalMicros(text: string): number | undefined {
  const match = INTERVAL.exec(text);
  if (match === null || text === '') return undefined;
  const [, days = '0', sign, hours = '0', minutes = '0', seconds = '0', fraction = ''] = match;
  const time =
    ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1_000_000 + Number(fraction.padEnd(6, '0'));
  const micros = Number(days) * DAY_MICROS + (sign === '-' ? -time : time);
  return Number.isSafeInteger(micros) ? micros : undefined;
}

export class IntervalBuilder extends MaskedBuilder {
  private readonly micros = new Float64Array(this.capacity);

  protected storeNull(row: number): void {
    this.micros[row] = Number.NaN;
  }

  push(buffer: Buffer, start: number, end: number): void {
    if (this.values === undefined) {
      const micros = intervalMicros(buffer.toString('latin1', start, end));
      if (micros !== undefined) {
        this.micros[this.rows++] = micros;
        return;
      }
    }
    (this.values ?? this.leaveFastPath()).push(buffer.toString('utf8', start, end));
    this.rows += 1;
  }

  byteSize(): number {
    return this.rows * 8;
  }

  protected valueAt(row: number): unknown {
    return this.mask[row] ? null : formatInterval(this.micros[row] ?? 0);
  }

  protected encodeFast(): Encoded {
    return this.withMask({ encoding: 'm8', values: bytesOf(this.micros.subarray(0, this.rows)) });
  }
}

/** The text PostgreSQL would print for a duration, for a chunk whose column fell back to text. */
function formatInterval(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  let rest = Math.abs(micros);
  const days = Math.floor(rest / DAY_MICROS);
  rest -= days * DAY_MICROS;
  const fraction = rest % 1_000_000;
  const seconds = Math.floor(rest / 1_000_000);
  const pad = (value: number) => String(value).padStart(2, '0');
  const time = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
  const micro = fraction > 0 ? `.${String(fraction).padStart(6, '0')}` : '';
  const day = days === 0 ? '' : `${sign}${days} ${days === 1 ? 'day' : 'days'} `;
  return `${day}${sign}${time}${micro}`;
}
