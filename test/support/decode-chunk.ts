/** Reads an encoded chunk back into plain values, as the kernel's loader would: for tests of the columnar readers. */
import type { EncodedChunk } from '../../src/db/extract/encode-chunk.js';

/** A `dict` column's entries, in either of its forms (NUL-terminated or JSON), as the kernel reads them. */
function entriesOf(text: string, terminated: boolean | undefined): string[] {
  return terminated ? text.split('\0').slice(0, -1) : JSON.parse(text);
}

/** Every column of a chunk as plain values, whatever its encoding. */
export function decode(chunk: EncodedChunk): unknown[][] {
  return chunk.columns.map((column) => {
    const at = (segment: { offset: number; length: number }) =>
      chunk.data.subarray(segment.offset, segment.offset + segment.length);
    const values = at(column.values);
    const mask = column.mask ? at(column.mask) : undefined;
    const entries =
      column.encoding === 'dict'
        ? entriesOf(at(column.dictionary ?? column.values).toString('utf8'), column.terminated)
        : [];
    const out: unknown[] = [];
    for (let row = 0; row < chunk.rows; row++) {
      if (mask?.[row]) out.push(null);
      else if (column.encoding === 'dict') {
        const code = values.readInt32LE(row * 4);
        out.push(code < 0 ? null : entries[code]);
      } else if (column.encoding === 'b1') out.push(values[row]);
      else if (column.encoding === 'i8') out.push(values.readBigInt64LE(row * 8));
      else if (column.encoding === 'u8') out.push(values.readBigUInt64LE(row * 8));
      else out.push(values.readDoubleLE(row * 8));
    }
    return [column.encoding, out];
  });
}
