// @ts-check
/**
 * One batch of a running statement, read in sqlite-worker.js and laid out column by column as
 * sqlite-batch.ts describes: a column whose values are all numbers or NULL as a Float64Array and a
 * NULL mask (moved to the main thread without a copy), any other column as its values. Plain
 * JavaScript, like the worker.
 */

/** Past this, a double may not be the integer SQLite holds. */
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The next batch, or null when `doubles` is on and a number past 2^53 came: SQLite may have held an
 * integer that the double rounded, so the caller reads this batch again with BigInts. A column turns
 * into plain values at its first value that is not a number; a BigInt becomes a number when a double
 * holds it exactly.
 * @param {import('./sqlite-read-batch.js').BatchSource} source (types in sqlite-read-batch.d.ts)
 * @returns {import('./sqlite-read-batch.js').Batch | null}
 */
export function readBatch(source) {
  const { iterator, width, rows, numeric, doubles } = source;
  /** @type {Array<Float64Array | null>} */
  const numbers = numeric.map((isNumeric) => (isNumeric ? new Float64Array(rows) : null));
  /** @type {Array<Uint8Array | null>} */
  const nulls = numeric.map(() => null);
  /** @type {unknown[][]} */
  const values = numeric.map(() => []);
  /** @type {unknown[] | undefined} */
  let last;
  let count = 0;
  let done = false;
  while (count < rows) {
    const next = iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const row = next.value;
    for (let column = 0; column < width; column++) {
      let value = row[column];
      if (typeof value === 'number') {
        if (doubles && (value > MAX_SAFE || value < -MAX_SAFE)) return null;
      } else if (typeof value === 'bigint') {
        const number = Number(value); // rounds only past 2^53, where it leaves the range below
        if (number <= MAX_SAFE && number >= -MAX_SAFE) value = number;
      }
      const into = numbers[column];
      if (into === null || into === undefined) {
        /** @type {unknown[]} */ (values[column]).push(value);
      } else if (typeof value === 'number') {
        into[count] = value;
      } else if (value === null) {
        const mask = nulls[column] ?? new Uint8Array(rows);
        nulls[column] = mask;
        mask[count] = 1;
      } else {
        // Not a number: this column of this batch is plain values from here on.
        const mask = nulls[column];
        /** @type {unknown[]} */
        const plain = [];
        for (let before = 0; before < count; before++) plain.push(mask?.[before] ? null : into[before]);
        plain.push(value);
        values[column] = plain;
        numbers[column] = null;
        nulls[column] = null;
      }
    }
    last = row;
    count += 1;
  }
  /** @type {ArrayBuffer[]} */
  const transfer = [];
  const columns = numeric.map((_, column) => {
    const into = numbers[column];
    if (into === null || into === undefined) return { values: /** @type {unknown[]} */ (values[column]) };
    const mask = nulls[column];
    transfer.push(/** @type {ArrayBuffer} */ (into.buffer));
    if (mask) transfer.push(/** @type {ArrayBuffer} */ (mask.buffer));
    return mask ? { numbers: into, nulls: mask } : { numbers: into };
  });
  if (last) {
    for (let column = 0; column < width; column++) {
      const value = last[column];
      if (value !== null) numeric[column] = typeof value === 'number' || typeof value === 'bigint';
    }
  }
  return { message: { op: 'rows', columns, count, done }, transfer };
}
