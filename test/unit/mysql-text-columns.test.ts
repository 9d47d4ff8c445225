/**
 * The columnar reader of MySQL text-protocol rows must encode exactly what the row path encodes
 * (mysql2's values through encodeChunk): the same encodings, numbers, dates, text and NULLs,
 * including the values that leave the fast path.
 */
import { describe, expect, it } from 'vitest';
import type { ColumnEncoding } from '../../src/db/column-kind.js';
import { encodeChunk } from '../../src/db/extract/encode-chunk.js';
import { MysqlTextColumns } from '../../src/db/extract/mysql-text-columns.js';
import { decode } from '../support/decode-chunk.js';

/** A row packet's payload: each value length-prefixed, NULL as 0xfb. */
function packet(values: Array<string | Uint8Array | null>) {
  const parts: Buffer[] = [];
  for (const value of values) {
    if (value === null) {
      parts.push(Buffer.from([0xfb]));
      continue;
    }
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
    const length =
      bytes.length < 0xfb
        ? Buffer.from([bytes.length])
        : Buffer.concat([Buffer.from([0xfc]), Buffer.from([bytes.length & 0xff, bytes.length >> 8])]);
    parts.push(length, bytes);
  }
  const payload = Buffer.concat([Buffer.alloc(4), ...parts]); // mysql2's packets start with a 4-byte header
  return { buffer: payload, offset: 4, end: payload.length };
}

/** BIT(1) arrives as one raw byte, and mysql2 hands it over as a Buffer. */
const bit = (value: number) => Uint8Array.of(value);

/** What mysql2 hands the row path for the same text, with tally's options. */
function driverRow(values: Array<string | Uint8Array | null>, encodings: ColumnEncoding[]): unknown[] {
  return values.map((value, index) => {
    const kind = encodings[index]?.kind;
    if (value === null || typeof value !== 'string') return value;
    if (kind === 'integer') return Number.isSafeInteger(Number(value)) ? Number(value) : value;
    if (kind === 'float') return Number.parseFloat(value);
    return value;
  });
}

function both(rows: Array<Array<string | Uint8Array | null>>, encodings: ColumnEncoding[], exactDecimals = false) {
  const reader = new MysqlTextColumns(encodings, { exactDecimals });
  for (const row of rows) reader.add(packet(row));
  const columnar = decode(reader.take());
  const expected = decode(
    encodeChunk(
      rows.map((row) => driverRow(row, encodings)),
      encodings,
      { exactDecimals },
    ),
  );
  return { columnar, expected };
}

describe('MysqlTextColumns', () => {
  it('encodes numbers, dates, booleans and text like the row path', () => {
    const encodings: ColumnEncoding[] = [
      { kind: 'integer' },
      { kind: 'float' },
      { kind: 'decimal' },
      { kind: 'date' },
      { kind: 'datetime' },
      { kind: 'time' },
      { kind: 'boolean' },
      { kind: 'text' },
    ];
    const { columnar, expected } = both(
      [
        [
          '-128',
          '0.5',
          '12345678.1234',
          '2024-02-29',
          '2024-02-29 23:59:59.123456',
          '-838:59:59',
          bit(1),
          'Zürich 東京 🚀',
        ],
        [null, null, null, null, null, null, null, null],
        ['0', '-2.5e300', '-0.0001', '0000-00-00', '1900-01-01 00:00:00', '12:34:56.5', bit(0), ''],
        [
          '42',
          '0.30000000000000004',
          '1234567890.12345678',
          '1970-01-01',
          '2024-01-01 00:00:00.5',
          '00:00:00',
          bit(1),
          'quote " back \\ tab \t nul \0',
        ],
      ],
      encodings,
    );
    expect(columnar).toEqual(expected);
    expect(columnar.map(([encoding]) => encoding)).toEqual(['i8f', 'f8', 'f8', 'M8', 'M8', 'm8', 'b1', 'dict']);
  });

  it('keeps integers past 2^53 exact and decimals exact as text when asked', () => {
    const encodings: ColumnEncoding[] = [{ kind: 'integer', wide: true }, { kind: 'decimal' }];
    const rows = [
      ['9223372036854775807', '0.1'],
      ['-9223372036854775808', null],
      ['1', '-99999999999999999999.99'],
    ];
    const wide = both(rows, encodings, true);
    expect(wide.columnar).toEqual(wide.expected);
    expect(wide.columnar[0]?.[0]).toBe('i8');
    expect(wide.columnar[1]).toEqual(['dict', ['0.1', null, '-99999999999999999999.99']]);
    const unsigned = both([['18446744073709551615'], ['3']], [{ kind: 'integer', wide: true }]);
    expect(unsigned.columnar).toEqual(unsigned.expected);
    expect(unsigned.columnar[0]?.[0]).toBe('u8');
  });

  it('stores mostly distinct text in row order and repeated text once, across the switch', () => {
    const rows = Array.from({ length: 3000 }, (_, index) => [
      index % 5 === 0 ? null : `customer ${index}`,
      `segment ${index % 3}`,
    ]);
    const { columnar, expected } = both(rows, [{ kind: 'text' }, { kind: 'text' }]);
    expect(columnar).toEqual(expected);
  });

  it('keeps a dictionary that grows past its first rows exact, empty strings included', () => {
    const rows = Array.from({ length: 9000 }, (_, index) => [
      index < 2000 ? (['', 'a', 'b'][index % 3] ?? '') : `late value ${index % 4000} é`,
    ]);
    const { columnar, expected } = both(rows, [{ kind: 'text' }]);
    expect(columnar).toEqual(expected);
  });

  it('ends each text entry with a NUL, and writes JSON instead for a chunk whose values hold one', () => {
    const clean = Array.from({ length: 3000 }, (_, index) => [`customer ${index}`, `segment ${index % 3}`]);
    const plain = both(clean, [{ kind: 'text' }, { kind: 'text' }]);
    expect(plain.columnar).toEqual(plain.expected);
    const reader = new MysqlTextColumns([{ kind: 'text' }, { kind: 'text' }], { exactDecimals: false });
    for (const row of clean) reader.add(packet(row));
    expect(reader.take().columns.map((column) => column.terminated)).toEqual([true, true]);
    // A NUL inside a value, in a mostly distinct column and in a repeated one.
    const dirty = clean.map(([name, segment], index) =>
      index === 2500 ? [`nul\0inside ${index}`, 'seg\0ment'] : [name ?? '', segment ?? ''],
    );
    const { columnar, expected } = both(dirty, [{ kind: 'text' }, { kind: 'text' }]);
    expect(columnar).toEqual(expected);
    for (const row of dirty) reader.add(packet(row));
    expect(reader.take().columns.map((column) => column.terminated)).toEqual([undefined, undefined]);
  });

  it('turns a column into text, like the row path, when a value does not fit its kind', () => {
    const { columnar, expected } = both(
      [
        ['2024-01-31', '1.5'],
        ['someday', 'abc'],
        [null, null],
      ],
      [{ kind: 'date' }, { kind: 'decimal' }],
    );
    expect(columnar[0]).toEqual(expected[0]);
    expect(columnar[0]?.[0]).toBe('dict');
    expect(columnar[1]).toEqual(expected[1]);
    expect(columnar[1]).toEqual(['dict', ['1.5', 'abc', null]]);
  });

  it('ends a chunk at its row budget', () => {
    const reader = new MysqlTextColumns([{ kind: 'integer' }], { exactDecimals: false });
    let full = false;
    for (let row = 0; row < reader.chunkRows && !full; row++) full = reader.add(packet([String(row)]));
    expect(full).toBe(true);
    expect(reader.take().rows).toBe(reader.chunkRows);
    expect(reader.pending).toBe(0);
  });
});
