/**
 * One column of a chunk once encoded, before packChunk (encode-chunk.ts) lays it out in the chunk's
 * buffer: the shape every encoder and column builder returns, and the values the encoders read.
 */

export type SegmentEncoding = 'f8' | 'i8f' | 'i8' | 'u8' | 'b1' | 'M8' | 'm8' | 'dict';

/** One column of a chunk, encoded, before it is laid out in the chunk's buffer. */
export type Encoded = {
  encoding: SegmentEncoding;
  values: Uint8Array;
  mask?: Uint8Array;
  dictionary?: Uint8Array;
  binary?: boolean;
  terminated?: boolean;
};

/** A column's values, one per row: what the encoders read. */
export type Column = ArrayLike<unknown>;
