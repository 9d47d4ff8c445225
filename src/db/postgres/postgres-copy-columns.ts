/**
 * Reads the output of `COPY (query) TO STDOUT` (text format) straight into column builders, the way
 * MysqlTextColumns reads MySQL row packets: one pass over the bytes, each value's bytes handed to its
 * column without a JavaScript row or string in between, and an encoded chunk every `chunkRows` rows
 * (fewer for wide rows). Rows end in `\n`, values are separated by `\t`, `\N` is NULL, and a backslash
 * escapes the few characters text may not hold raw (COPY TO writes only `\\ \b \f \n \r \t \v`).
 */

import { type ColumnBuilder, columnBuilder } from '../extract/column-builders.js';
import { ColumnChunks } from '../extract/column-chunks.js';
import type { EncodedChunk, EncodeOptions } from '../extract/encode-chunk.js';
import { IntervalBuilder } from './postgres-interval-builder.js';
import type { PostgresEncoding } from './postgres-types.js';

const TAB = 0x09;
const NEWLINE = 0x0a;
const BACKSLASH = 0x5c;
const TRUE = Buffer.of(1);
const FALSE = Buffer.of(0);
const ESCAPED = new Map<number, number>([
  [0x62, 0x08], // \b
  [0x66, 0x0c], // \f
  [0x6e, 0x0a], // \n
  [0x72, 0x0d], // \r
  [0x74, 0x09], // \t
  [0x76, 0x0b], // \v
]);

export class PostgresCopyColumns extends ColumnChunks {
  private readonly encodings: PostgresEncoding[];
  /** The start of a row the last chunk of bytes ended inside. */
  private carry: Buffer | undefined;
  private scratch = Buffer.allocUnsafe(1 << 12);

  constructor(encodings: PostgresEncoding[], options: EncodeOptions) {
    super(encodings, options, (encoding, encodeOptions, capacity) =>
      (encoding as PostgresEncoding).copy === 'interval'
        ? new IntervalBuilder(encoding, encodeOptions, capacity)
        : columnBuilder(encoding, encodeOptions, capacity),
    );
    this.encodings = encodings;
  }

  /** Reads the rows of `bytes` (a row may continue into the next call); returns the chunks that filled up. */
  feed(bytes: Buffer): EncodedChunk[] {
    const chunks: EncodedChunk[] = [];
    let data = bytes;
    if (this.carry) {
      const end = bytes.indexOf(NEWLINE);
      if (end < 0) {
        this.carry = Buffer.concat([this.carry, bytes]);
        return chunks;
      }
      const row = Buffer.concat([this.carry, bytes.subarray(0, end + 1)]);
      this.carry = undefined;
      if (this.readRows(row, 0, chunks) !== row.length) throw new Error('a COPY row did not end where it should');
      data = bytes.subarray(end + 1);
    }
    const consumed = this.readRows(data, 0, chunks);
    if (consumed < data.length) this.carry = Buffer.from(data.subarray(consumed));
    return chunks;
  }

  /** The rows not yet in a chunk, as one; `undefined` when there are none. */
  finish(): EncodedChunk | undefined {
    if (this.carry) throw new Error('the COPY output ended inside a row');
    return this.pending > 0 ? this.take() : undefined;
  }

  /** Reads whole rows from `at`; returns where the first incomplete row starts. */
  private readRows(data: Buffer, at: number, chunks: EncodedChunk[]): number {
    const width = this.builders.length;
    const lastColumn = width - 1;
    // Rows end at a newline, which no value holds raw (COPY escapes it), nor any byte of a UTF-8 sequence: the
    // bytes up to the last newline are whole rows, and a row that continues in the next bytes is left alone.
    const last = data.lastIndexOf(NEWLINE);
    let position = at;
    while (position <= last) {
      if (width === 0 && data[position++] !== NEWLINE)
        throw new Error('a COPY row has values the query has no column for');
      for (let column = 0; column < width; column++) {
        const start = position;
        let escaped = false;
        let byte = data[position] as number;
        while (byte !== TAB && byte !== NEWLINE) {
          if (byte === BACKSLASH) {
            escaped = true;
            position += 1; // the escaped byte, which may be a backslash itself
          }
          position += 1;
          byte = data[position] as number;
        }
        if ((byte === NEWLINE) !== (column === lastColumn)) {
          throw new Error('a COPY row does not have as many values as the query has columns');
        }
        this.pushValue(column, data, start, position, escaped);
        position += 1;
      }
      if (this.rowDone()) chunks.push(this.take());
    }
    return position;
  }

  private pushValue(column: number, data: Buffer, start: number, end: number, escaped: boolean): void {
    const builder = this.builders[column] as ColumnBuilder;
    const copy = (this.encodings[column] as PostgresEncoding).copy;
    if (escaped) {
      if (end - start === 2 && data[start + 1] === 0x4e) {
        builder.pushNull();
        return;
      }
      const length = this.unescape(data, start, end);
      if (copy === 'bytea') builder.push(hexBytes(this.scratch, length), 0, (length - 2) >> 1);
      else builder.push(this.scratch, 0, length);
      return;
    }
    if (copy === undefined) builder.push(data, start, end);
    else if (copy === 'boolean') builder.push(data[start] === 0x74 ? TRUE : FALSE, 0, 1);
    // With the session's TimeZone at UTC every timestamptz ends in +00.
    else if (copy === 'timestamptz' && data[end - 3] === 0x2b) builder.push(data, start, end - 3);
    else builder.push(data, start, end);
  }

  /** The value of `data[start, end)` without its escapes, in `this.scratch`; returns its length. */
  private unescape(data: Buffer, start: number, end: number): number {
    if (this.scratch.length < end - start) this.scratch = Buffer.allocUnsafe(2 * (end - start));
    const out = this.scratch;
    let length = 0;
    for (let at = start; at < end; at++) {
      const byte = data[at] as number;
      if (byte !== BACKSLASH) {
        out[length++] = byte;
        continue;
      }
      at += 1;
      const next = data[at] as number;
      out[length++] = ESCAPED.get(next) ?? next;
    }
    return length;
  }
}

/** `\x48656c…` (bytea's hex output) decoded in place; the bytes start at 0. */
function hexBytes(buffer: Buffer, length: number): Buffer {
  const bytes = Buffer.from(buffer.toString('latin1', 2, length), 'hex');
  bytes.copy(buffer, 0);
  return buffer;
}
