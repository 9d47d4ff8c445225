import { describe, expect, it } from 'vitest';
import { type ChunkColumn, type EncodedChunk, encodeChunk } from '../../src/db/extract/encode-chunk.js';

const exact = { exactDecimals: false };

/** A `dict` column's entries: NUL-terminated, or JSON when marked so. */
function entriesOf(chunk: EncodedChunk, column: ChunkColumn | undefined): unknown[] {
  const segment = column?.dictionary ?? { offset: 0, length: 0 };
  const text = chunk.data.subarray(segment.offset, segment.offset + segment.length).toString();
  return column?.terminated ? text.split('\0').slice(0, -1) : JSON.parse(text);
}

function floats(data: Buffer, offset: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => data.readDoubleLE(offset + index * 8));
}

describe('encodeChunk', () => {
  it('lays every segment on an 8-byte boundary', () => {
    const chunk = encodeChunk(
      [
        [1, 'a', true],
        [null, null, null],
        [3, 'bc', false],
      ],
      [{ kind: 'integer' }, { kind: 'text' }, { kind: 'boolean' }],
      exact,
    );
    for (const column of chunk.columns) {
      for (const segment of [column.values, column.mask, column.dictionary]) {
        if (segment) expect(segment.offset % 8).toBe(0);
      }
    }
    expect(chunk.columns.map((column) => column.encoding)).toEqual(['i8f', 'dict', 'b1']);
    expect(chunk.columns[0]?.mask).toBeDefined();
  });

  it('parses MySQL date strings, zero dates and times to microseconds', () => {
    const chunk = encodeChunk(
      [
        ['1970-01-02', '2024-02-29 23:59:59.123456', '-01:00:00.5'],
        ['0000-00-00', '1900-01-01 00:00:00', '838:59:59'],
      ],
      [{ kind: 'date' }, { kind: 'datetime' }, { kind: 'time' }],
      exact,
    );
    const [day, moment, clock] = chunk.columns;
    expect(floats(chunk.data, day?.values.offset ?? 0, 2)).toEqual([86_400_000_000, Number.NaN]);
    expect(floats(chunk.data, moment?.values.offset ?? 0, 2)).toEqual([
      Date.UTC(2024, 1, 29, 23, 59, 59) * 1000 + 123_456,
      Date.UTC(1900, 0, 1) * 1000,
    ]);
    expect(floats(chunk.data, clock?.values.offset ?? 0, 2)).toEqual([
      -3_600_500_000,
      (838 * 3600 + 59 * 60 + 59) * 1e6,
    ]);
  });

  it('falls back to text for a value that does not fit the column kind', () => {
    const chunk = encodeChunk([['2024-01-31'], ['yesterday'], ['2024-1x-01']], [{ kind: 'date' }], exact);
    const column = chunk.columns[0];
    expect(column?.encoding).toBe('dict');
    expect(entriesOf(chunk, column)).toEqual(['2024-01-31', 'yesterday', '2024-1x-01']);
  });

  it('keeps integers past 2^53 exact as int64 and unsigned ones as uint64', () => {
    const signed = encodeChunk([['9223372036854775807'], [null]], [{ kind: 'integer', wide: true }], exact);
    expect(signed.columns[0]?.encoding).toBe('i8');
    expect(signed.data.readBigInt64LE(signed.columns[0]?.values.offset ?? 0)).toBe(9223372036854775807n);
    const unsigned = encodeChunk([['18446744073709551615']], [{ kind: 'integer', wide: true }], exact);
    expect(unsigned.columns[0]?.encoding).toBe('u8');
  });

  it('stores mostly distinct text in row order, and repeated text once', () => {
    const distinct = Array.from({ length: 2000 }, (_, index) => [`customer ${index}`]);
    const repeated = Array.from({ length: 2000 }, (_, index) => [`segment ${index % 3}`]);
    const dictionaryOf = (rows: unknown[][]) => {
      const chunk = encodeChunk(rows, [{ kind: 'text' }], exact);
      return entriesOf(chunk, chunk.columns[0]);
    };
    expect(dictionaryOf(distinct)).toHaveLength(2000);
    expect(dictionaryOf(repeated)).toEqual(['segment 0', 'segment 1', 'segment 2']);
  });
});
