/**
 * Column builders for text: a per-chunk dictionary (or, for mostly distinct values, the values in
 * row order) written straight from the UTF-8 bytes, and the driver's own values for the rare
 * columns that need them (binary, BIT(n), NULL-typed).
 */

import { ByteDictionary } from './byte-dictionary.js';
import { ColumnBuilder } from './column-builder.js';
import { ByteSink, bytesOf } from './column-bytes.js';
import { encodeColumn } from './encode-chunk.js';
import type { Encoded } from './encoded-column.js';

/** Past this many distinct values in the first rows, text is stored row by row instead of in a dictionary. */
const SAMPLE_ROWS = 1024;
const SAMPLE_DISTINCT = 768;

/**
 * `dict`: text (and exact decimals) as int32 codes and the entries written straight from the UTF-8
 * bytes, each ending in a NUL byte (or, when a value holds a NUL itself, as a JSON array).
 */
export class TextBuilder extends ColumnBuilder {
  private readonly codes = new Int32Array(this.capacity);
  private readonly dictionary = new ByteDictionary();
  /** Entries stored row by row (mostly distinct values) rather than in the dictionary. */
  private plain = false;
  /** The entries, each followed by a NUL byte; entry `n` ends (before its NUL) at ends[n]. */
  private readonly entries = new ByteSink();
  private readonly ends = new Int32Array(this.capacity);
  private entryCount = 0;
  /** No entry holds a NUL byte, so the NULs alone tell them apart. */
  private clean = true;
  private readonly json = new ByteSink();

  pushNull(): void {
    this.codes[this.rows] = -1;
    this.rows += 1;
  }

  push(buffer: Buffer, start: number, end: number): void {
    if (this.plain) {
      this.codes[this.rows++] = this.addEntry(buffer, start, end);
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
    return this.rows * 4 + (this.plain ? this.entries.length : this.dictionary.bytes.length + this.dictionary.size);
  }

  protected valueAt(): unknown {
    throw new Error('text never leaves its fast path');
  }

  protected encodeFast(): Encoded {
    const values = bytesOf(this.codes.subarray(0, this.rows));
    if (!this.plain) this.addDictionaryEntries((code) => code, this.dictionary.size);
    if (this.clean) return { encoding: 'dict', values, dictionary: this.entries.view(), terminated: true };
    return { encoding: 'dict', values, dictionary: this.jsonEntries(), binary: false };
  }

  protected resetFast(): void {
    this.dictionary.clear();
    this.plain = false;
    this.entries.length = 0;
    this.entryCount = 0;
    this.clean = true;
  }

  private addEntry(source: Uint8Array, start: number, end: number): number {
    if (!this.entries.terminated(source, start, end)) this.clean = false;
    this.ends[this.entryCount] = this.entries.length - 1;
    return this.entryCount++;
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
    this.addDictionaryEntries((index) => rowCodes[index] ?? 0, rowCodes.length);
    this.plain = true;
    this.dictionary.clear();
  }

  /** `count` of the dictionary's entries, each chosen by `pick`, as the entries from the first. */
  private addDictionaryEntries(pick: (index: number) => number, count: number): void {
    const { dictionary } = this;
    this.entries.length = 0;
    this.entryCount = 0;
    for (let index = 0; index < count; index++) {
      const code = pick(index);
      this.addEntry(dictionary.bytes.buffer, dictionary.start(code), dictionary.end(code));
    }
  }

  /** The entries as a JSON array of strings. */
  private jsonEntries(): Uint8Array {
    const { json, entries, ends } = this;
    json.length = 0;
    json.byte(0x5b);
    for (let index = 0; index < this.entryCount; index++) {
      if (index > 0) json.byte(0x2c);
      json.jsonString(entries.buffer, index === 0 ? 0 : (ends[index - 1] as number) + 1, ends[index] as number);
    }
    json.byte(0x5d);
    return json.view();
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
