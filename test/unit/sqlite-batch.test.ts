import { describe, expect, it } from 'vitest';
import type { ColumnEncoding } from '../../src/db/column-kind.js';
import { encodeColumns } from '../../src/db/extract/encode-chunk.js';
import { batchRows, columnValues, encodeSqliteBatch, type SqliteColumn } from '../../src/db/sqlite/sqlite-batch.js';

/** A numbers column as the worker sends it: `capacity` long, 0 under each NULL, a mask when one is NULL. */
function numbers(values: Array<number | null>, capacity = values.length + 3): SqliteColumn {
  const array = new Float64Array(capacity);
  let nulls: Uint8Array | undefined;
  values.forEach((value, row) => {
    if (value === null) {
      nulls ??= new Uint8Array(capacity);
      nulls[row] = 1;
    } else array[row] = value;
  });
  return nulls ? { numbers: array, nulls } : { numbers: array };
}

const floats = { exactDecimals: false };
const exact = { exactDecimals: true };

/** The batch encoded, next to the same values encoded as plain rows (what every other source does). */
function both(column: SqliteColumn, rows: number, encoding: ColumnEncoding, options = floats) {
  const copy: SqliteColumn =
    'numbers' in column
      ? {
          numbers: column.numbers.slice(),
          ...(column.nulls ? { nulls: column.nulls.slice() } : {}),
        }
      : column;
  const reference = encodeColumns([columnValues(copy, rows)], rows, [encoding], options);
  const batch = encodeSqliteBatch({ columns: [column], rows }, [encoding], options);
  return { batch, reference };
}

describe('encodeSqliteBatch', () => {
  const cases: Array<[string, Array<number | null>, ColumnEncoding, typeof floats, string]> = [
    ['integers', [1, -2, 3, 0, 2 ** 53 - 1], { kind: 'integer', wide: true }, floats, 'i8f'],
    ['integers with NULLs', [null, 7, null, -0], { kind: 'integer', wide: true }, floats, 'i8f'],
    ['integers past 2^53 held as doubles', [1, 2 ** 60], { kind: 'integer', wide: true }, floats, 'i8'],
    ['a fraction in an INTEGER column', [1, 2.5, null], { kind: 'integer', wide: true }, floats, 'f8'],
    ['floats with NULLs', [0.5, null, -1e300, 3], { kind: 'float' }, floats, 'f8'],
    ['decimals as floats', [19.99, null, 0], { kind: 'decimal' }, floats, 'f8'],
    ['decimals kept exact', [19.99, null, 0], { kind: 'decimal' }, exact, 'dict'],
    ['untyped integers', [42, null, 1], { kind: 'dynamic' }, floats, 'i8f'],
    ['untyped numbers', [42, 3.5, null], { kind: 'dynamic' }, floats, 'f8'],
    ['booleans', [1, 0, null], { kind: 'boolean' }, floats, 'b1'],
    ['numbers in a text column', [1, 2.5, null], { kind: 'text' }, floats, 'dict'],
    ['numbers in a DATE column', [20240131, null], { kind: 'date' }, floats, 'dict'],
  ];
  for (const [name, values, encoding, options, expected] of cases) {
    it(`lays out ${name} byte for byte as the rows would be`, () => {
      const { batch, reference } = both(numbers(values), values.length, encoding, options);
      expect(batch.columns.map((column) => column.encoding)).toEqual([expected]);
      expect(batch.columns).toEqual(reference.columns);
      expect(batch.data.equals(reference.data)).toBe(true);
      expect(batch.rows).toBe(values.length);
    });
  }

  it('encodes a column of values, BigInt past 2^53 included, as the rows would be', () => {
    const column: SqliteColumn = { values: [9007199254740993n, null, -1] };
    const { batch, reference } = both(column, 3, { kind: 'integer', wide: true });
    expect(batch.columns[0]?.encoding).toBe('i8');
    expect(batch.data.equals(reference.data)).toBe(true);
    expect(batch.data.readBigInt64LE(batch.columns[0]?.values.offset)).toBe(9007199254740993n);
  });

  it('puts NaN under the NULLs of a float column', () => {
    const { batch } = both(numbers([1.5, null]), 2, { kind: 'float' });
    const offset = batch.columns[0]?.values.offset ?? 0;
    expect([batch.data.readDoubleLE(offset), batch.data.readDoubleLE(offset + 8)]).toEqual([1.5, Number.NaN]);
  });
});

describe('a batch as values and rows', () => {
  it('gives NULL under the mask and the numbers elsewhere, only `rows` of them', () => {
    expect(columnValues(numbers([1, null, 2.5], 8), 3)).toEqual([1, null, 2.5]);
    expect(batchRows({ columns: [numbers([1, null], 4), { values: ['a', 3n] }], rows: 2 })).toEqual([
      [1, 'a'],
      [null, 3n],
    ]);
  });
});
