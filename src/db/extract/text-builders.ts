/**
 * Column builders for text: a per-chunk dictionary (or, for mostly distinct values, the values in
 * row order) written as JSON straight from the UTF-8 bytes, and the driver's own values for the
 * rare columns that need them (binary, BIT(n), NULL-typed).
 */

import { ByteDictionary } from './byte-dictionary.js';
import { ColumnBuilder } from './column-builder.js';
import { ByteSink, bytesOf } from './column-bytes.js';
import { type Encoded, encodeColumn } from './encode-chunk.js';

/** Past this many distinct values in the first rows, text is stored row by row instead of in a dictionary. */
const SAMPLE_ROWS = 1024;
const SAMPLE_DISTINCT = 768;

/** `dict`: text (and exact decimals) as int32 codes and a JSON array written from the UTF-8 bytes. */
export class TextBuilder extends ColumnBuilder {
  private readonly codes = new Int32Array(this.capacity);
  private readonly dictionary = new ByteDictionary();
  /** Row by row: the JSON array itself, being written. */
  private plain: ByteSink | undefined;
  private readonly sink = new ByteSink();
  private entryCount = 0;

  pushNull(): void {
    this.codes[this.rows] = -1;
    this.rows += 1;
  }

  push(buffer: Buffer, start: number, end: number): void {
    const plain = this.plain;
    if (plain) {
      if (this.entryCount > 0) plain.byte(0x2c);
      plain.jsonString(buffer, start, end);
      this.codes[this.rows++] = this.entryCount++;
      return;
    }
    if (this.rows === SAMPLE_ROWS && this.dictionary.size > SAMPLE_DISTINCT) {
      this.storePlain();
      this.push(buffer, start, end);
      return;
    }
    this.codes[this.rows++] = this.dictionary.codeOf(buffer, start, end);
  }

  byteSize(): number {
    return this.rows * 4 + (this.plain?.length ?? this.dictionary.bytes.length + this.dictionary.size * 3);
  }

  protected valueAt(): unknown {
    throw new Error('text never leaves its fast path');
  }

  protected encodeFast(): Encoded {
    const values = bytesOf(this.codes.subarray(0, this.rows));
    if (!this.plain) this.writeEntries(this.sink, (code) => code);
    const sink = this.plain ?? this.sink;
    sink.byte(0x5d);
    return { encoding: 'dict', values, dictionary: sink.view(), binary: false };
  }

  protected resetFast(): void {
    this.dictionary.clear();
    this.plain = undefined;
    this.sink.length = 0;
    this.entryCount = 0;
  }

  /** Mostly distinct values: rewrite the rows so far in row order and go on that way. */
  private storePlain(): void {
    const rowCodes: number[] = [];
    for (let row = 0; row < this.rows; row++) {
      const code = this.codes[row] ?? -1;
      if (code < 0) continue;
      this.codes[row] = rowCodes.length;
      rowCodes.push(code);
    }
    this.entryCount = this.writeEntries(this.sink, (index) => rowCodes[index] ?? 0, rowCodes.length);
    this.plain = this.sink;
    this.dictionary.clear();
  }

  /** '[' and the JSON strings of `count` entries (the dictionary's, by default), each chosen by `pick`. */
  private writeEntries(sink: ByteSink, pick: (index: number) => number, count = this.dictionary.size): number {
    const { dictionary } = this;
    sink.length = 0;
    sink.byte(0x5b);
    for (let index = 0; index < count; index++) {
      if (index > 0) sink.byte(0x2c);
      const code = pick(index);
      sink.jsonString(dictionary.bytes.buffer, dictionary.start(code), dictionary.end(code));
    }
    return count;
  }
}

/** Every value through the driver's representation: binary, BIT(n), NULL-typed and other rare columns. */
export class DriverValueBuilder extends ColumnBuilder {
  pushNull(): void {
    (this.values ?? this.leaveFastPath()).push(null);
    this.rows += 1;
  }

  push(buffer: Buffer, start: number, end: number): void {
    this.pushDriverValue(buffer, start, end);
  }

  byteSize(): number {
    return this.rows * 16;
  }

  protected valueAt(): unknown {
    return null;
  }

  protected encodeFast(): Encoded {
    return encodeColumn([], this.encoding, this.options);
  }

  protected resetFast(): void {}
}
