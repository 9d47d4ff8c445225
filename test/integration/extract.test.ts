/**
 * Extraction into a real kernel from real MariaDB and SQLite: every common column type arrives
 * with the right pandas dtype and exact values, NULL stays distinct from '', and large results
 * stream through bounded chunks.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtractTooLargeError, SqlRejectedError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { MysqlDatabase } from '../../src/db/mysql/mysql-database.js';
import { SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import type { ExtractProgress } from '../../src/ports/database.js';
import type { Kernel } from '../../src/ports/sandbox.js';
import { cleanUp } from '../support/clean-up.js';
import { adminConnection, createTestDatabase, type TestDatabase } from '../support/mariadb.js';
import { LIMITS } from '../support/sample-databases.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

const LONG_TEXT = 'λ'.repeat(100_000);

let fixture: TestSandbox;
let kernel: Kernel;
let mariadb: TestDatabase;
let mysqlDb: MysqlDatabase;
let sqliteFolder: string;
let sqliteDb: SqliteDatabase;

/** Runs Python that leaves a JSON-able value in `out`, and returns it. */
async function inKernel<T>(code: string): Promise<T> {
  const execution = await kernel.run(`${code}\nimport json as _json\nprint(_json.dumps(out, default=str))`);
  expect(execution.error, execution.error?.traceback).toBeUndefined();
  return JSON.parse(execution.stdout.trim().split('\n').pop() ?? 'null') as T;
}

beforeAll(async () => {
  fixture = await startTestSandbox({ limits: { memoryMb: 2048, cpus: 1 } });
  kernel = await fixture.sandbox.acquire('extract-test');
  mariadb = await createTestDatabase('tally_extract');
  const admin = await adminConnection(mariadb.name);
  await admin.query(`CREATE TABLE types (
      id INT PRIMARY KEY, tiny TINYINT, small SMALLINT, medium MEDIUMINT, regular INT, big BIGINT, ubig BIGINT UNSIGNED,
      flag TINYINT(1), bitflag BIT(1), price DECIMAL(12,4), ratio FLOAT, measure DOUBLE,
      day DATE, moment DATETIME(6), stamp TIMESTAMP NULL DEFAULT NULL, clock TIME(6), yr YEAR,
      name VARCHAR(100), body MEDIUMTEXT, code CHAR(3), kind ENUM('a','b'), tags SET('x','y'), doc JSON,
      raw VARBINARY(16), blobby BLOB)`);
  await admin.query(
    `INSERT INTO types VALUES
      (1, -128, 32767, 8388607, -2147483648, 9223372036854775807, 18446744073709551615, 1, b'1', 12345678.1234, 0.5, 3.141592653589793,
       '2024-02-29', '2024-02-29 23:59:59.123456', '2024-03-01 00:00:01', '-838:59:59', 2024,
       'Zürich 東京 🚀', ?, 'abc', 'b', 'x,y', '{"k": [1, 2]}', 0x00FF10, 0xDEADBEEF),
      (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (3, 0, 0, 0, 0, -9223372036854775808, 0, 0, b'0', -0.0001, -1e-10, -2.5e300,
       '1970-01-01', '1900-01-01 00:00:00', NULL, '12:34:56.5', 1901,
       '', '', '', 'a', '', '[]', X'', X'')`,
    [LONG_TEXT],
  );
  await admin.query(
    `CREATE TABLE big AS SELECT seq AS id, seq * 1.5 AS x, CONCAT('user', seq % 1000) AS label,
       DATE_ADD(DATE '2020-01-01', INTERVAL seq % 1000 DAY) AS day, IF(seq % 10 = 0, NULL, seq % 7) AS maybe
     FROM seq_1_to_1000000`,
  );
  await admin.end();
  mysqlDb = await MysqlDatabase.connect({
    name: 'extract',
    url: mariadb.url,
    limits: LIMITS,
    logger: createLogger({ level: 'silent' }),
  });

  sqliteFolder = await mkdtemp(join(tmpdir(), 'tally-extract-'));
  const file = new BetterSqlite(join(sqliteFolder, 'types.db'));
  file.defaultSafeIntegers(true);
  file.exec(`CREATE TABLE things (id INTEGER PRIMARY KEY, n INTEGER, r REAL, t TEXT, b BLOB, d DATE, ts DATETIME,
    ok BOOLEAN, price NUMERIC, anything)`);
  const insert = file.prepare('INSERT INTO things VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  insert.run(
    1n,
    9007199254740993n,
    2.5,
    'héllo',
    Buffer.from([1, 2, 3]),
    '2024-01-31',
    '2024-01-31 08:00:00',
    1n,
    19.99,
    42n,
  );
  insert.run(2n, null, null, null, null, null, null, null, null, 'text here');
  insert.run(3n, -1n, -0.25, '', Buffer.alloc(0), '1999-12-31', '1999-12-31 23:59:59.5', 0n, 0, 3.5);
  file.close();
  sqliteDb = await SqliteDatabase.open({ name: 'things', path: join(sqliteFolder, 'types.db'), limits: LIMITS });
});

afterAll(() =>
  cleanUp(
    () => mysqlDb?.close(),
    () => sqliteDb?.close(),
    () => mariadb?.drop(),
    () => sqliteFolder && rm(sqliteFolder, { recursive: true, force: true }),
    () => fixture?.close(),
  ),
);

describe('extracting from MariaDB into the kernel', () => {
  it('gives every common MySQL type the right dtype and exact values', async () => {
    const provenance = await mysqlDb.extract('SELECT * FROM types ORDER BY id', kernel, 't');
    expect(provenance.rows).toBe(3);
    const dtypes = Object.fromEntries(provenance.columns.map((column) => [column.name, column.dtype]));
    expect(dtypes).toMatchObject({
      id: 'int64',
      tiny: 'Int64',
      small: 'Int64',
      medium: 'Int64',
      regular: 'Int64',
      big: 'Int64',
      ubig: 'UInt64',
      flag: 'boolean',
      bitflag: 'boolean',
      price: 'float64',
      ratio: 'float64',
      measure: 'float64',
      day: 'datetime64[ns]',
      moment: 'datetime64[ns]',
      stamp: 'datetime64[ns]',
      clock: 'timedelta64[ns]',
      yr: 'Int64',
      name: 'object',
      body: 'object',
      doc: 'object',
      raw: 'object',
    });
    const values = await inKernel<Record<string, unknown[]>>(`
import pandas as pd
def show(v):
    if v is None or v is pd.NA or (isinstance(v, float) and v != v) or v is pd.NaT:
        return None
    if isinstance(v, bytes):
        return "bytes:" + v.hex()
    if isinstance(v, (pd.Timestamp, pd.Timedelta)):
        return str(v)
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**53:
        return str(v)  # JSON numbers would lose the digits on the way to JavaScript
    return v if isinstance(v, (int, float, str, bool)) else str(v)
out = {c: [show(v) for v in t[c].tolist()] for c in t.columns if c != "body"}
out["body"] = [None if v is None else len(v) for v in t["body"]]`);
    expect(values.big?.[1]).toBeNull();
    expect(String(values.big?.[0])).toBe('9223372036854775807');
    expect(String(values.big?.[2])).toBe('-9223372036854775808');
    expect(String(values.ubig?.[0])).toBe('18446744073709551615');
    expect(values.tiny).toEqual([-128, null, 0]);
    expect(values.flag).toEqual([true, null, false]);
    expect(values.bitflag).toEqual([true, null, false]);
    expect(values.price).toEqual([12345678.1234, null, -0.0001]);
    expect(values.measure).toEqual([Math.PI, null, -2.5e300]);
    expect(values.day).toEqual(['2024-02-29 00:00:00', null, '1970-01-01 00:00:00']);
    expect(values.moment).toEqual(['2024-02-29 23:59:59.123456', null, '1900-01-01 00:00:00']);
    expect(values.stamp).toEqual(['2024-03-01 00:00:01', null, null]);
    expect(values.clock).toEqual(['-35 days +01:00:01', null, '0 days 12:34:56.500000']);
    expect(values.yr).toEqual([2024, null, 1901]);
    expect(values.name).toEqual(['Zürich 東京 🚀', null, '']);
    expect(values.code).toEqual(['abc', null, '']);
    expect(values.kind).toEqual(['b', null, 'a']);
    expect(values.tags).toEqual(['x,y', null, '']);
    expect(JSON.parse(String(values.doc?.[0]))).toEqual({ k: [1, 2] });
    expect(values.raw).toEqual(['bytes:00ff10', null, 'bytes:']);
    expect(values.blobby).toEqual(['bytes:deadbeef', null, 'bytes:']);
    expect(values.body).toEqual([100_000, null, 0]);
  });

  it('keeps decimals exact as strings when asked', async () => {
    await mysqlDb.extract('SELECT id, price FROM types ORDER BY id', kernel, 'exact', { exactDecimals: true });
    expect(await inKernel('out = [str(exact.price.dtype), exact.price.tolist()]')).toEqual([
      'object',
      ['12345678.1234', null, '-0.0001'],
    ]);
  });

  it('gives a frame whose columns a cell can change in place', async () => {
    await mysqlDb.extract('SELECT id, measure, name, day FROM types ORDER BY id', kernel, 'editable');
    expect(
      await inKernel(`
editable.loc[0, "measure"] = 1.5
editable.loc[1, "id"] = 20
editable["id"] += 1
out = [editable.measure.tolist()[0], editable.id.tolist()]`),
    ).toEqual([1.5, [2, 21, 4]]);
  });

  it('handles zero rows and a single column', async () => {
    const empty = await mysqlDb.extract('SELECT id, name, price, day FROM types WHERE id < 0', kernel, 'nothing');
    expect(empty.rows).toBe(0);
    expect(await inKernel('out = [nothing.shape, [str(d) for d in nothing.dtypes]]')).toEqual([
      [0, 4],
      ['int64', 'object', 'float64', 'datetime64[ns]'],
    ]);
    await mysqlDb.extract('SELECT name FROM types ORDER BY id', kernel, 'names');
    expect(await inKernel('out = [list(names.columns), names.shape]')).toEqual([['name'], [3, 1]]);
  });

  it('frees the frame an extract replaces once the reply is out, keeping the new one', async () => {
    await mysqlDb.extract('SELECT id, name FROM types', kernel, 'again');
    await kernel.run('import weakref\n_old_again = weakref.ref(again)');
    await mysqlDb.extract('SELECT id FROM types ORDER BY id', kernel, 'again');
    expect(await inKernel('out = [_old_again() is None, "_tally_retired" in globals(), list(again.columns)]')).toEqual([
      true,
      false,
      ['id'],
    ]);
  });

  it('keeps text exact whether or not a value holds a NUL byte, repeated or not', async () => {
    const sql = (nul: string) =>
      `SELECT CONCAT('v', seq % 3, ${nul}) AS few, CONCAT('row ', seq, ${nul}) AS many FROM seq_1_to_3000`;
    await mysqlDb.extract(sql("''"), kernel, 'clean');
    await mysqlDb.extract(sql("IF(seq = 2999, CAST(CHAR(0) AS CHAR), '')"), kernel, 'dirty');
    const values = await inKernel<string[][]>(
      'out = [clean.iloc[[0, 2998]].values.ravel().tolist(), dirty.iloc[[0, 2998]].values.ravel().tolist()]',
    );
    expect(values).toEqual([
      ['v1', 'row 1', 'v2', 'row 2999'],
      ['v1', 'row 1', 'v2\u0000', 'row 2999\u0000'],
    ]);
  });

  it('streams a million rows into a typed DataFrame with its provenance', async () => {
    const progress: ExtractProgress[] = [];
    const provenance = await mysqlDb.extract('SELECT * FROM big', kernel, 'big', {
      onProgress: (step) => progress.push(step),
    });
    expect(provenance.rows).toBe(1_000_000);
    expect(provenance.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(progress.length).toBe(Math.ceil(1_000_000 / 8192)); // one per chunk
    expect(progress.map((step) => step.rows)).toEqual([...progress.map((step) => step.rows)].sort((a, b) => a - b));
    const summary = await inKernel(`
out = {"rows": len(big), "ids": int(big.id.sum()), "labels": int(big.label.nunique()),
       "dtypes": [str(d) for d in big.dtypes], "nulls": int(big.maybe.isna().sum()),
       "sql": big.attrs["provenance"]["sql"], "x": float(big.x.sum())}`);
    expect(summary).toEqual({
      rows: 1_000_000,
      ids: 500_000_500_000,
      labels: 1000,
      dtypes: ['int64', 'float64', 'object', 'datetime64[ns]', 'Int64'],
      nulls: 100_000,
      sql: 'SELECT * FROM big',
      x: 750_000_750_000,
    });
  });

  it('refuses a result over the row budget, says how to proceed, and leaves nothing behind', async () => {
    const attempt = mysqlDb.extract('SELECT * FROM big', kernel, 'too_big', { maxRows: 100_000 });
    await expect(attempt).rejects.toBeInstanceOf(ExtractTooLargeError);
    await expect(attempt).rejects.toThrow(/Filter, sample or aggregate in SQL/);
    const left = await inKernel<string[]>('import os\nout = sorted(os.listdir("/inputs/extracts"))');
    expect(left.some((folder) => folder.startsWith('too_big-'))).toBe(false);
    expect((await kernel.run('too_big')).error?.name).toBe('NameError');
    expect((await mysqlDb.query('SELECT COUNT(*) FROM big')).rows).toEqual([[1_000_000]]);
  });

  it('stops an extraction that runs out of time mid-stream, and the next one works', async () => {
    // 150,000 rows stream before the server stalls: the error arrives while rows are being read.
    const stalling =
      'SELECT seq, IF(seq = 150000, (SELECT COUNT(*) FROM seq_1_to_1000000 a JOIN seq_1_to_1000 b), 0) AS pause FROM seq_1_to_300000';
    const attempt = mysqlDb.extract(stalling, kernel, 'stalled', { timeoutMs: 2000 });
    await expect(attempt).rejects.toThrow(/ran longer than 2000 ms/);
    expect((await kernel.run('stalled')).error?.name).toBe('NameError');
    const after = await mysqlDb.extract('SELECT * FROM big ORDER BY id LIMIT 200000', kernel, 'after');
    expect(after.rows).toBe(200_000);
    expect(await inKernel('out = int(after.id.sum())')).toBe(20_000_100_000);
  });

  it('rejects writes and bad DataFrame names before touching the kernel', async () => {
    await expect(mysqlDb.extract('DELETE FROM big', kernel, 'x')).rejects.toBeInstanceOf(SqlRejectedError);
    await expect(mysqlDb.extract('SELECT 1', kernel, 'import')).rejects.toThrow(/Python identifier/);
    await expect(mysqlDb.extract('SELECT 1', kernel, 'a b')).rejects.toThrow(/Python identifier/);
  });
});

describe('extracting from SQLite into the kernel', () => {
  it('maps declared types and keeps big integers, blobs, blanks and NULLs exact', async () => {
    const provenance = await sqliteDb.extract('SELECT *, id * 2 AS doubled FROM things ORDER BY id', kernel, 'things');
    expect(Object.fromEntries(provenance.columns.map((column) => [column.name, column.dtype]))).toEqual({
      id: 'int64',
      n: 'Int64',
      r: 'float64',
      t: 'object',
      b: 'object',
      d: 'datetime64[ns]',
      ts: 'datetime64[ns]',
      ok: 'boolean',
      price: 'float64',
      anything: 'object',
      doubled: 'int64',
    });
    const values = await inKernel<Record<string, unknown[]>>(`
out = {
  "n": [None if v is pd.NA else str(v) for v in things.n.tolist()],
  "t": things.t.tolist(),
  "b": [None if v is None else v.hex() for v in things.b],
  "ts": [None if v is pd.NaT else str(v) for v in things.ts],
  "ok": [None if v is pd.NA else bool(v) for v in things.ok],
  "anything": things.anything.tolist(),
}`);
    expect(values).toEqual({
      n: ['9007199254740993', null, '-1'],
      t: ['héllo', null, ''],
      b: ['010203', null, ''],
      ts: ['2024-01-31 08:00:00', null, '1999-12-31 23:59:59.500000'],
      ok: [true, null, false],
      anything: ['42', 'text here', '3.5'],
    });
  });

  it('fills columns across many chunks, with NULLs arriving late and a column that turns to text midway', async () => {
    const file = new BetterSqlite(join(sqliteFolder, 'mixed.db'));
    file.exec('CREATE TABLE mixed (id INTEGER, n INTEGER, v INTEGER, t TEXT, d DATE)');
    const insert = file.prepare('INSERT INTO mixed VALUES (?, ?, ?, ?, ?)');
    file.transaction(() => {
      for (let id = 0; id < 40_000; id++) {
        insert.run(
          id,
          id === 30_000 ? null : id,
          id < 10_000 ? id : `v${id}`,
          `t${id % 5}`,
          id === 35_000 ? null : '2024-01-31',
        );
      }
    })();
    file.close();
    const mixed = await SqliteDatabase.open({ name: 'mixed', path: join(sqliteFolder, 'mixed.db'), limits: LIMITS });
    try {
      const provenance = await mixed.extract('SELECT * FROM mixed ORDER BY id', kernel, 'mixed');
      expect(provenance.columns.map((column) => column.dtype)).toEqual([
        'int64',
        'Int64',
        'object',
        'object',
        'datetime64[ns]',
      ]);
    } finally {
      await mixed.close();
    }
    expect(
      await inKernel(`out = [len(mixed), int(mixed.id.sum()), int(mixed.n.sum()), bool(mixed.n.isna()[30000]),
  mixed.v[[0, 8191, 8192, 10000, 39999]].tolist(), mixed.t[[0, 39999]].tolist(), int(mixed.d.isna().sum()), str(mixed.d[0])]`),
    ).toEqual([
      40_000,
      799_980_000,
      799_950_000,
      true,
      [0, 8191, '8192', 'v10000', 'v39999'], // the second chunk turned to text as a whole,
      ['t0', 't4'],
      1,
      '2024-01-31 00:00:00',
    ]);
  });
});
