/**
 * Reads MySQL text-protocol row packets straight into column builders: each value's bytes go to its
 * column without a JavaScript row or value in between, and every `chunkRows` rows (fewer for wide
 * rows, so a chunk stays near `CHUNK_BYTES`) the columns are packed into one encoded chunk.
 */
import type { ColumnEncoding } from '../column-kind.js';
import { type ColumnBuilder, columnBuilder } from './column-builders.js';
import { type EncodedChunk, type EncodeOptions, packChunk } from './encode-chunk.js';

/** About this many bytes per encoded chunk: one part file, one write, a handful of numpy calls. */
export const CHUNK_BYTES = 8 * 1024 * 1024;
const MAX_CHUNK_ROWS = 131_072;
const MIN_CHUNK_ROWS = 8192;
/** How often the size of a chunk being built is checked (text makes it unpredictable). */
const SIZE_CHECK_ROWS = 1024;

/** What mysql2 hands a row parser: the packet's buffer and where the row's payload lies in it. */
export interface RowPacket {
  buffer: Buffer;
  offset: number;
  end: number;
}

export class MysqlTextColumns {
  readonly chunkRows: number;
  private readonly builders: ColumnBuilder[];
  private rows = 0;

  constructor(encodings: ColumnEncoding[], options: EncodeOptions) {
    this.chunkRows = Math.max(
      MIN_CHUNK_ROWS,
      Math.min(MAX_CHUNK_ROWS, Math.floor(CHUNK_BYTES / (8 * Math.max(1, encodings.length)))),
    );
    this.builders = encodings.map((encoding) => columnBuilder(encoding, options, this.chunkRows));
  }

  /** Adds one row; true when the chunk is full and should be taken. */
  add(packet: RowPacket): boolean {
    const { buffer, end } = packet;
    let offset = packet.offset;
    for (const builder of this.builders) {
      const first = buffer[offset] as number;
      if (first === 0xfb) {
        builder.pushNull();
        offset += 1;
        continue;
      }
      let length: number;
      if (first < 0xfb) {
        length = first;
        offset += 1;
      } else if (first === 0xfc) {
        length = buffer.readUInt16LE(offset + 1);
        offset += 3;
      } else if (first === 0xfd) {
        length = buffer.readUIntLE(offset + 1, 3);
        offset += 4;
      } else {
        length = buffer.readUInt32LE(offset + 1) + buffer.readUInt32LE(offset + 5) * 2 ** 32;
        offset += 9;
      }
      if (offset + length > end) throw new Error('a MySQL row packet ended inside a value');
      builder.push(buffer, offset, offset + length);
      offset += length;
    }
    this.rows += 1;
    if (this.rows >= this.chunkRows) return true;
    return this.rows % SIZE_CHECK_ROWS === 0 && this.byteSize() >= CHUNK_BYTES;
  }

  get pending(): number {
    return this.rows;
  }

  /** The rows so far as one chunk; the builders start over. */
  take(): EncodedChunk {
    const chunk = packChunk(
      this.builders.map((builder) => builder.finish()),
      this.rows,
    );
    for (const builder of this.builders) builder.reset();
    this.rows = 0;
    return chunk;
  }

  private byteSize(): number {
    let size = 0;
    for (const builder of this.builders) size += builder.byteSize();
    return size;
  }
}
