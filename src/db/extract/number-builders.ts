/**
 * Column builders for numbers, booleans and times: values parsed from ASCII bytes into the typed
 * arrays the kernel reads with numpy.frombuffer (`f8`, `i8f`, `b1`, `M8`, `m8`).
 */

import { ColumnBuilder, MaskedBuilder } from './column-builder.js';
import { bytesOf, microsToText, parseMicros, parseNumber } from './column-bytes.js';
import type { Encoded } from './encoded-column.js';
import { NotThisKind, parseDateTime, parseTime } from './parse-temporal.js';

/** `f8`: FLOAT, DOUBLE, and DECIMAL unless exact. */
export class FloatBuilder extends ColumnBuilder {
  private readonly numbers = new Float64Array(this.capacity);

  pushNull(): void {
    if (this.values) this.values.push(null);
    else this.numbers[this.rows] = Number.NaN;
    this.rows += 1;
  }

  push(buffer: Buffer, start: number, end: number): void {
    if (this.values === undefined) {
      const number = parseNumber(buffer, start, end);
      if (!Number.isNaN(number)) {
        this.numbers[this.rows++] = number;
        return;
      }
    }
    this.pushDriverValue(buffer, start, end);
  }

  byteSize(): number {
    return this.rows * 8;
  }

  protected valueAt(row: number): unknown {
    const number = this.numbers[row] ?? Number.NaN;
    return Number.isNaN(number) ? null : number;
  }

  protected encodeFast(): Encoded {
    return { encoding: 'f8', values: bytesOf(this.numbers.subarray(0, this.rows)) };
  }

  protected resetFast(): void {}
}

/** `i8f` with a mask: integers that fit 2^53 exactly. */
export class IntegerBuilder extends MaskedBuilder {
  private readonly numbers = new Float64Array(this.capacity);

  protected storeNull(row: number): void {
    this.numbers[row] = 0;
  }

  push(buffer: Buffer, start: number, end: number): void {
    if (this.values === undefined) {
      let at = start;
      const negative = buffer[at] === 0x2d;
      if (negative) at += 1;
      // Fifteen digits stay below 2^53; longer ones (BIGINT) take the driver's way.
      if (end > at && end - at <= 15) {
        let number = 0;
        for (; at < end; at++) {
          const digit = (buffer[at] ?? 0) - 48;
          if (digit < 0 || digit > 9) break;
          number = number * 10 + digit;
        }
        if (at === end) {
          this.numbers[this.rows++] = negative ? -number : number;
          return;
        }
      } else {
        const number = Number(buffer.toString('latin1', start, end));
        if (Number.isSafeInteger(number) && end > start) {
          this.numbers[this.rows++] = number;
          return;
        }
      }
    }
    this.pushDriverValue(buffer, start, end);
  }

  byteSize(): number {
    return this.rows * 9;
  }

  protected valueAt(row: number): unknown {
    return this.mask[row] ? null : this.numbers[row];
  }

  protected encodeFast(): Encoded {
    return this.withMask({ encoding: 'i8f', values: bytesOf(this.numbers.subarray(0, this.rows)) });
  }
}

/** `b1`: BIT(1), sent as one raw byte. */
export class BooleanBuilder extends MaskedBuilder {
  private readonly flags = new Uint8Array(this.capacity);

  protected storeNull(): void {}

  push(buffer: Buffer, start: number, end: number): void {
    const flag = end > start ? (buffer[end - 1] ?? 0) : 0;
    if (this.values === undefined && flag <= 1) {
      this.flags[this.rows++] = flag;
      return;
    }
    this.pushDriverValue(buffer, start, end);
  }

  byteSize(): number {
    return this.rows * 2;
  }

  protected valueAt(row: number): unknown {
    return this.mask[row] ? null : Uint8Array.of(this.flags[row] ?? 0);
  }

  protected encodeFast(): Encoded {
    return this.withMask({ encoding: 'b1', values: this.flags.subarray(0, this.rows) });
  }
}

/** `M8` and `m8`: dates, datetimes and TIME as microseconds. */
export class MicrosBuilder extends MaskedBuilder {
  private readonly micros = new Float64Array(this.capacity);
  private readonly time = this.encoding.kind === 'time';

  /** NaN (the mask tells a NULL from a zero date, which is NaN alone). */
  protected storeNull(row: number): void {
    this.micros[row] = Number.NaN;
  }

  push(buffer: Buffer, start: number, end: number): void {
    if (this.values === undefined) {
      const micros = (this.time ? undefined : parseMicros(buffer, start, end)) ?? this.parseText(buffer, start, end);
      if (micros !== undefined) {
        this.micros[this.rows++] = micros;
        return;
      }
    }
    this.pushDriverValue(buffer, start, end);
  }

  byteSize(): number {
    return this.rows * 8;
  }

  protected valueAt(row: number): unknown {
    return this.mask[row] ? null : microsToText(this.micros[row] ?? Number.NaN, this.encoding.kind);
  }

  protected encodeFast(): Encoded {
    return { encoding: this.time ? 'm8' : 'M8', values: bytesOf(this.micros.subarray(0, this.rows)) };
  }

  private parseText(buffer: Buffer, start: number, end: number): number | undefined {
    const text = buffer.toString('latin1', start, end);
    try {
      return this.time ? parseTime(text) : parseDateTime(text);
    } catch (error) {
      if (error instanceof NotThisKind) return undefined;
      throw error;
    }
  }
}
