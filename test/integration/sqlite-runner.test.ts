/**
 * The SQLite worker and its main-thread end on a real file: batches read ahead of the consumer,
 * columns that change from numbers to other values inside a batch and between batches, and a
 * statement stopped or failing while batches are in flight, after which the next one is clean.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryFailedError } from '../../src/base/errors.js';
import { CHUNK_ROWS } from '../../src/db/extract/extract-into-kernel.js';
import { SqliteRunner } from '../../src/db/sqlite/sqlite-runner.js';

const ROWS = 3 * CHUNK_ROWS + 5;
let folder: string;
let runner: SqliteRunner;

/** Rows past the first two batches, where an integer past 2^53 and a large REAL come. */
const LATE = 2 * CHUNK_ROWS + 3;

/**
 * Row `id`: `n` a number, NULL every 7th, text from row 10, a BigInt past 2^53 at row 12; `m` text,
 * then numbers; `big` an integer, past 2^53 at row LATE only; `r` a REAL, 1e20 at row LATE + 1.
 */
function expectedRow(id: number): unknown[] {
  const n = id === 12 ? 9007199254740993n : id >= 10 && id % 3 === 0 ? `t${id}` : id % 7 === 0 ? null : id / 2;
  const m = id < CHUNK_ROWS + 2 ? `m${id}` : id;
  const big = id === LATE ? 2n ** 60n + 1n : id * 1000;
  const r = id === LATE + 1 ? 1e20 : id + 0.5;
  return [id, n, m, big, r];
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-sqlite-runner-'));
  const file = new BetterSqlite(join(folder, 'rows.db'));
  file.defaultSafeIntegers(true);
  file.exec('CREATE TABLE rows (id INTEGER, n, m, big INTEGER, r REAL)');
  const insert = file.prepare('INSERT INTO rows VALUES (?, ?, ?, ?, ?)');
  file.transaction(() => {
    for (let id = 0; id < ROWS; id++) insert.run(...expectedRow(id));
  })();
  file.close();
  runner = new SqliteRunner(join(folder, 'rows.db'), 'rows');
});

afterAll(async () => {
  await runner?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

async function allRows(sql: string, batchRows?: number): Promise<{ rows: unknown[][]; batches: number[] }> {
  return runner.run(sql, { timeoutMs: 30_000, batchRows }, async (statement) => {
    const rows: unknown[][] = [];
    const batches: number[] = [];
    for await (const batch of statement.batches) {
      rows.push(...batch);
      batches.push(batch.length);
    }
    return { rows, batches };
  });
}

describe('SqliteRunner', () => {
  it('hands over every row exactly, whether a column arrives as numbers or as values', async () => {
    const { rows, batches } = await allRows('SELECT id, n, m, big, r FROM rows ORDER BY id');
    expect(batches).toEqual([CHUNK_ROWS, CHUNK_ROWS, CHUNK_ROWS, 5]);
    expect(rows).toEqual(Array.from({ length: ROWS }, (_, id) => expectedRow(id)));
    const columns = await runner.run('SELECT n, m FROM rows ORDER BY id', { timeoutMs: 30_000 }, async (statement) => {
      const kinds: string[][] = [];
      for await (const batch of statement.columnBatches)
        kinds.push(batch.columns.map((column) => Object.keys(column)[0] ?? ''));
      return kinds;
    });
    // n starts each batch as numbers and turns to values at its first text; m is text, then numbers
    // from the batch after the one where its text ends.
    expect(columns).toEqual([
      ['values', 'values'],
      ['values', 'values'],
      ['values', 'numbers'],
      ['values', 'numbers'],
    ]);
  });

  it('reads again with BigInts from where it was when an integer past 2^53 comes late, every row once', async () => {
    // Integers arrive as doubles until then; the rows already sent are skipped in the second run.
    const { rows } = await allRows('SELECT big, r FROM rows', 100);
    expect(rows).toEqual(Array.from({ length: ROWS }, (_, id) => expectedRow(id).slice(3)));
  });

  it('reads a statement that a second run would not repeat with BigInts from the start', async () => {
    // Shuffled: were it run again at the integer past 2^53, rows would come twice and others not at all.
    const { rows } = await allRows('SELECT id, big FROM rows ORDER BY random()', 100);
    expect(rows.map(([id]) => id as number).sort((a, b) => a - b)).toEqual(Array.from({ length: ROWS }, (_, id) => id));
    expect(rows.find(([id]) => id === LATE)).toEqual([LATE, 2n ** 60n + 1n]);
  });

  it('reads in batches of the size asked for, at most CHUNK_ROWS', async () => {
    expect((await allRows('SELECT id FROM rows LIMIT 25', 10)).batches).toEqual([10, 10, 5]);
    expect((await allRows('SELECT id FROM rows', 10 * CHUNK_ROWS)).batches[0]).toBe(CHUNK_ROWS);
  });

  it('stops a statement with batches read ahead, and the next statement sees only its own rows', async () => {
    const first = await runner.run(
      'SELECT id FROM rows ORDER BY id',
      { timeoutMs: 30_000, batchRows: 100 },
      async (statement) => {
        for await (const batch of statement.batches) {
          await new Promise((resolve) => setTimeout(resolve, 50)); // the worker reads ahead meanwhile
          await statement.cancel();
          return batch[0];
        }
      },
    );
    expect(first).toEqual([0]);
    expect(await allRows("SELECT 'only this'")).toEqual({ rows: [['only this']], batches: [1] });
  });

  it('fails with the error SQLite raised mid-stream, and the next statement works', async () => {
    const failing = allRows(
      `SELECT id, CASE WHEN id = ${2 * CHUNK_ROWS} THEN json('not json') ELSE id END FROM rows ORDER BY id`,
    );
    await expect(failing).rejects.toBeInstanceOf(QueryFailedError);
    await expect(failing).rejects.toThrow(/malformed JSON/);
    expect((await allRows('SELECT COUNT(*) FROM rows')).rows).toEqual([[ROWS]]);
  });
});
