/**
 * The base of the column builders: one column of a chunk built straight from the bytes a driver
 * received (MySQL's text protocol), without a JavaScript value per cell on the common paths. A value
 * that does not fit the fast path (an integer past 2^53, an odd date) turns that column of that
 * chunk into the values the driver itself would have made, which `encodeColumn` then encodes
 * exactly as it encodes rows from any other source.
 */
import type { ColumnEncoding } from '../column-kind.js';
import { type EncodeOptions, encodeColumn } from './encode-chunk.js';
import type { Encoded } from './encoded-column.js';

export abstract class ColumnBuilder {
  rows = 0;
  /** The driver's values for this chunk, once the column has left its fast path. */
  protected values: unknown[] | undefined;

  constructor(
    protected readonly encoding: ColumnEncoding,
    protected readonly options: EncodeOptions,
    protected readonly capacity: number,
  ) {}

  abstract pushNull(): void;
  /** The value held in `buffer[start, end)`. */
  abstract push(buffer: Buffer, start: number, end: number): void;
  /** Bytes this chunk's column takes so far (roughly). */
  abstract byteSize(): number;
  /** The driver's value for a row already stored on the fast path. */
  protected abstract valueAt(row: number): unknown;
  protected abstract encodeFast(): Encoded;
  protected abstract resetFast(): void;

  /** The column of this chunk; its arrays are reused after `reset()`. */
  finish(): Encoded {
    if (this.values === undefined) return this.encodeFast();
    return encodeColumn(this.values, this.encoding, this.options);
  }

  reset(): void {
    this.values = undefined;
    this.resetFast();
    this.rows = 0;
  }

  /** The rest of this chunk's column goes the slow way: the driver's values, encoded by `encodeColumn`. */
  protected leaveFastPath(): unknown[] {
    const values: unknown[] = [];
    for (let row = 0; row < this.rows; row++) values.push(this.valueAt(row));
    this.values = values;
    return values;
  }

  protected pushDriverValue(buffer: Buffer, start: number, end: number): void {
    (this.values ?? this.leaveFastPath()).push(driverValue(this.encoding, buffer, start, end));
    this.rows += 1;
  }
}

/** A builder whose fast path keeps NULLs in a mask (a subclass stores its own placeholder value). */
export abstract class MaskedBuilder extends ColumnBuilder {
  /** 1 where the row is NULL. */
  protected readonly mask = new Uint8Array(this.capacity);
  private nulls = false;

  /** Puts the fast path's placeholder for a NULL at `row`. */
  protected abstract storeNull(row: number): void;

  pushNull(): void {
    if (this.values) this.values.push(null);
    else {
      this.mask[this.rows] = 1;
      this.storeNull(this.rows);
      this.nulls = true;
    }
    this.rows += 1;
  }

  /** The encoded column with its mask when a row was NULL. */
  protected withMask(encoded: Encoded): Encoded {
    return this.nulls ? { ...encoded, mask: this.mask.subarray(0, this.rows) } : encoded;
  }

  protected resetFast(): void {
    if (this.nulls) this.mask.fill(0);
    this.nulls = false;
  }
}

/** What mysql2 makes of a value with tally's options (dateStrings, supportBigNumbers, string decimals). */
export function driverValue(encoding: ColumnEncoding, buffer: Buffer, start: number, end: number): unknown {
  switch (encoding.kind) {
    case 'integer': {
      const text = buffer.toString('latin1', start, end);
      const number = Number(text);
      return Number.isSafeInteger(number) ? number : text;
    }
    case 'float':
      return Number.parseFloat(buffer.toString('latin1', start, end));
    case 'binary':
    case 'boolean':
      return Buffer.from(buffer.subarray(start, end));
    default:
      return buffer.toString('utf8', start, end);
  }
}
