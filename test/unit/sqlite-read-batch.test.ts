import { describe, expect, it } from 'vitest';
import { columnValues, type SqliteColumn } from '../../src/db/sqlite/sqlite-batch.js';
import { type BatchSource, readBatch } from '../../src/db/sqlite/sqlite-read-batch.js';

function source(rows: unknown[][], options: { batch?: number; doubles?: boolean } = {}): BatchSource {
  const width = rows[0]?.length ?? 0;
  return {
    iterator: rows[Symbol.iterator](),
    width,
    rows: options.batch ?? 4,
    numeric: Array.from({ length: width }, () => true),
    doubles: options.doubles ?? false,
  };
}

/** What each column of a batch holds, and its values as the driver gave them. */
function read(from: BatchSource) {
  const batch = readBatch(from);
  if (batch === null) return null;
  const { columns, count, done } = batch.message;
  return {
    shapes: columns.map((column: SqliteColumn) => ('numbers' in column ? 'numbers' : 'values')),
    values: columns.map((column: SqliteColumn) => columnValues(column, count)),
    count,
    done,
    transferred: batch.transfer.length,
  };
}

describe('readBatch', () => {
  it('keeps numbers and NULLs as numbers, turns a column into values at its first other value', () => {
    const from = source([
      [1, null, 'a'],
      [2.5, 7, 'b'],
      [null, 'late', null],
    ]);
    expect(read(from)).toEqual({
      shapes: ['numbers', 'values', 'values'],
      values: [
        [1, 2.5, null],
        [null, 7, 'late'],
        ['a', 'b', null],
      ],
      count: 3,
      done: true,
      transferred: 2, // the first column's numbers and its NULL mask
    });
  });

  it('makes a BigInt a number when a double holds it, and keeps it otherwise', () => {
    const from = source([[1n], [-(2n ** 53n) + 1n], [2n ** 53n], [null]]);
    expect(read(from)?.values).toEqual([[1, -(2 ** 53) + 1, 2n ** 53n, null]]);
  });

  it('starts the next batch as numbers or values as the last batch ended', () => {
    const from = source(
      [
        [1, 'x'],
        ['y', 2],
        [3, 4],
        [5, 6],
      ],
      { batch: 2 },
    );
    expect(read(from)?.shapes).toEqual(['values', 'values']);
    expect(from.numeric).toEqual([false, true]);
    const second = read(from);
    expect(second?.shapes).toEqual(['values', 'numbers']);
    expect(second?.values).toEqual([
      [3, 5],
      [4, 6],
    ]);
    expect(second?.done).toBe(false); // a full batch: the end shows in the next one
    expect(read(from)).toMatchObject({ count: 0, done: true });
  });

  it('gives up on a batch when integers come as doubles and one may have been rounded', () => {
    expect(read(source([[1], [2 ** 53]], { doubles: true }))).toBeNull();
    expect(read(source([['text'], [-(2 ** 60)]], { doubles: true }))).toBeNull();
    // With BigInts, a double that large is a REAL and exact as it is.
    expect(read(source([[1], [2 ** 53]]))?.values).toEqual([[1, 2 ** 53]]);
    expect(read(source([[2 ** 53 - 1]], { doubles: true }))?.values).toEqual([[2 ** 53 - 1]]);
  });
});
