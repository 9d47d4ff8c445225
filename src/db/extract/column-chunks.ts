/**
 * What the readers that build columns straight from a driver's bytes share (MySQL row packets, PostgreSQL COPY
 * text): a builder per column, a row budget per chunk (fewer rows for wide ones, so a chunk stays near
 * CHUNK_BYTES), and the packing of the columns into one encoded chunk.
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

export abstract class ColumnChunks {
  readonly chunkRows: number;
  protected readonly builders: ColumnBuilder[];
  private rows = 0;

  constructor(
    encodings: readonly ColumnEncoding[],
    options: EncodeOptions,
    builderFor: (encoding: ColumnEncoding, options: EncodeOptions, capacity: number) => ColumnBuilder = columnBuilder,
  ) {
    this.chunkRows = Math.max(
      MIN_CHUNK_ROWS,
      Math.min(MAX_CHUNK_ROWS, Math.floor(CHUNK_BYTES / (8 * Math.max(1, encodings.length)))),
    );
    this.builders = encodings.map((encoding) => builderFor(encoding, options, this.chunkRows));
  }

  /** Rows read since the last chunk was taken. */
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

  /** Counts a row whose values are all in; true when the chunk is full and should be taken. */
  protected rowDone(): boolean {
    this.rows += 1;
    if (this.rows >= this.chunkRows) return true;
    return this.rows % SIZE_CHECK_ROWS === 0 && this.byteSize() >= CHUNK_BYTES;
  }

  private byteSize(): number {
    let size = 0;
    for (const builder of this.builders) size += builder.byteSize();
    return size;
  }
}
