// @ts-check
/**
 * Whether a statement run again, in the same read transaction, gives the same rows in the same
 * order: what lets sqlite-worker.js read integers as doubles and, at the first number that a double
 * may have rounded, read again with BigInts from the row where it was. SQLite runs a statement the
 * same way each time except through functions whose value changes between runs: random values and
 * the clock ('now', CURRENT_TIMESTAMP; every date function counts, whatever its arguments), found
 * among the functions in the statement's program, views and subqueries included. Plain JavaScript,
 * like the worker.
 */

const CHANGING =
  /^(random|randomblob|date|time|datetime|julianday|unixepoch|strftime|timediff|current_date|current_time|current_timestamp|changes|total_changes|last_insert_rowid)\(/i;

/** EXPLAIN's columns: addr, opcode, p1, p2, p3, p4, p5, comment; a call (Function, PureFunc) has `name(arguments)` in p4. */
const OPCODE = 1;
const P4 = 5;

/**
 * @param {import('better-sqlite3').Database} db
 * @param {string} sql one statement, already prepared successfully
 */
export function repeatable(db, sql) {
  try {
    const program = /** @type {unknown[][]} */ (db.prepare(`EXPLAIN ${sql}`).raw(true).all());
    return !program.some((step) => {
      const [opcode, operand] = [step[OPCODE], step[P4]];
      return typeof opcode === 'string' && opcode.includes('Func') && CHANGING.test(String(operand));
    });
  } catch {
    return false; // when in doubt, integers come as BigInt from the start
  }
}
