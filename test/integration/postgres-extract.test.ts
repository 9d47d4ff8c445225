/**
 * Extraction into a real kernel from a real PostgreSQL: every type the issue names arrives with the right pandas
 * dtype and exact values (NULLs throughout, time zones to UTC), large results stream through COPY in bounded
 * chunks, and a timeout, a cancellation or a refusal mid-stream leaves the database usable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtractTooLargeError, QueryCancelledError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { PostgresDatabase } from '../../src/db/postgres/postgres-database.js';
import type { Kernel } from '../../src/ports/sandbox.js';
import { cleanUp } from '../support/clean-up.js';
import { adminClient, createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { LIMITS } from '../support/sample-databases.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

let fixture: TestSandbox;
let kernel: Kernel;
let scratch: TestDatabase;
let database: PostgresDatabase;
const logger = createLogger({ level: 'silent' });

async function inKernel<T>(code: string): Promise<T> {
  const execution = await kernel.run(`${code}\nimport json as _json\nprint(_json.dumps(out, default=str))`);
  expect(execution.error, execution.error?.traceback).toBeUndefined();
  return JSON.parse(execution.stdout.trim().split('\n').pop() ?? 'null') as T;
}

beforeAll(async () => {
  fixture = await startTestSandbox({ limits: { memoryMb: 2048, cpus: 1 } });
  kernel = await fixture.sandbox.acquire('pg-extract');
  scratch = await createTestDatabase('tally_pg_extract');
  const admin = await adminClient(scratch.name);
  try {
    await admin.query(`CREATE TABLE types (
        id int PRIMARY KEY, small smallint, big bigint, price numeric(12,4), ratio real, measure double precision,
        name varchar(100), body text, code char(3), flag boolean, day date, moment timestamp(6),
        stamp timestamptz, clock time, span interval, uid uuid, doc json, docb jsonb, tags text[], nums int[],
        raw bytea)`);
    await admin.query(`INSERT INTO types VALUES
        (1, -32768, 9223372036854775807, 12345678.1234, 0.5, 3.141592653589793,
         'Zürich 東京 🚀', E'tab\\there\\nline \\\\ back', 'abc', true, '2024-02-29', '2024-02-29 23:59:59.123456',
         '2024-03-01 00:00:01+05:30', '12:34:56.5', '1 day 02:00:00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
         '{"k": [1, 2]}', '{"k": [1, 2]}', '{"a","b c"}', '{1,NULL,3}', '\\x00ff10'),
        (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
         NULL, NULL, NULL),
        (3, 0, -9223372036854775808, -0.0001, -1e-10, -2.5e300, '', '', '   ', false, '1970-01-01',
         '1900-01-01 00:00:00', '1999-12-31 23:00:00-01', '00:00:00', '-00:00:01.25', '00000000-0000-0000-0000-000000000000',
         '[]', '[]', '{}', '{}', '')`);
    await admin.query(`CREATE TABLE big AS
        SELECT g AS id, g * 1.5::float8 AS x, 'label ' || (g % 1000) AS label,
               timestamp '2020-01-01' + g * interval '1 second' AS at,
               CASE WHEN g % 10 = 0 THEN NULL ELSE g % 7 END AS maybe
          FROM generate_series(1, 1000000) AS g`);
  } finally {
    await admin.end();
  }
  database = await PostgresDatabase.connect({ name: 'shop', url: scratch.url, limits: LIMITS, logger });
}, 180_000);

afterAll(() =>
  cleanUp(
    () => database?.close(),
    () => scratch?.drop(),
    () => fixture?.close(),
  ),
);

describe('extracting from PostgreSQL into the kernel', () => {
  it('gives every type the right dtype and exact values, NULLs included, times in UTC', async () => {
    const provenance = await database.extract('SELECT * FROM types ORDER BY id', kernel, 'types');
    expect(provenance.rows).toBe(3);
    expect(Object.fromEntries(provenance.columns.map((column) => [column.name, [column.type, column.dtype]]))).toEqual({
      id: ['integer', 'int64'],
      small: ['smallint', 'Int64'],
      big: ['bigint', 'Int64'],
      price: ['numeric(12,4)', 'float64'],
      ratio: ['real', 'float64'],
      measure: ['double precision', 'float64'],
      name: ['character varying(100)', 'object'],
      body: ['text', 'object'],
      code: ['character(3)', 'object'],
      flag: ['boolean', 'boolean'],
      day: ['date', 'datetime64[ns]'],
      moment: ['timestamp(6) without time zone', 'datetime64[ns]'],
      stamp: ['timestamp with time zone', 'datetime64[ns]'],
      clock: ['time without time zone', 'timedelta64[ns]'],
      span: ['interval', 'timedelta64[ns]'],
      uid: ['uuid', 'object'],
      doc: ['json', 'object'],
      docb: ['jsonb', 'object'],
      tags: ['text[]', 'object'],
      nums: ['integer[]', 'object'],
      raw: ['bytea', 'object'],
    });
    const values = await inKernel<Record<string, unknown[]>>(`
import pandas as pd
def plain(v):
    if v is None or (not isinstance(v, (bytes, str, list)) and pd.isna(v)): return None
    if isinstance(v, bytes): return v.hex()
    if isinstance(v, (pd.Timestamp, pd.Timedelta)): return str(v)
    v = v.item() if hasattr(v, "item") else v
    return str(v) if isinstance(v, int) and abs(v) > 2**53 else v
out = {c: [plain(v) for v in types[c]] for c in types.columns}`);
    expect(values).toEqual({
      id: [1, 2, 3],
      small: [-32768, null, 0],
      big: ['9223372036854775807', null, '-9223372036854775808'],
      price: [12345678.1234, null, -0.0001],
      ratio: [0.5, null, -1e-10],
      measure: [Math.PI, null, -2.5e300],
      name: ['Zürich 東京 🚀', null, ''],
      body: ['tab\there\nline \\ back', null, ''],
      code: ['abc', null, '   '],
      flag: [true, null, false],
      day: ['2024-02-29 00:00:00', null, '1970-01-01 00:00:00'],
      moment: ['2024-02-29 23:59:59.123456', null, '1900-01-01 00:00:00'],
      stamp: ['2024-02-29 18:30:01', null, '2000-01-01 00:00:00'],
      clock: ['0 days 12:34:56.500000', null, '0 days 00:00:00'],
      span: ['1 days 02:00:00', null, '-1 days +23:59:58.750000'],
      uid: ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', null, '00000000-0000-0000-0000-000000000000'],
      doc: ['{"k": [1, 2]}', null, '[]'],
      docb: ['{"k": [1, 2]}', null, '[]'],
      tags: ['{a,"b c"}', null, '{}'],
      nums: ['{1,NULL,3}', null, '{}'],
      raw: ['00ff10', null, ''],
    });
    const exact = await database.extract('SELECT price, big FROM types ORDER BY id', kernel, 'exact', {
      exactDecimals: true,
    });
    expect(exact.columns.map((column) => column.dtype)).toEqual(['object', 'Int64']);
    expect(await inKernel('out = [exact.price[0], exact.price[2], str(exact.big[0])]')).toEqual([
      '12345678.1234',
      '-0.0001',
      '9223372036854775807',
    ]);
  });

  it('streams a million rows into a typed DataFrame with its provenance', async () => {
    const provenance = await database.extract('SELECT * FROM big', kernel, 'big');
    expect(provenance.rows).toBe(1_000_000);
    const summary = await inKernel(`
out = {"rows": len(big), "ids": int(big.id.sum()), "labels": int(big.label.nunique()),
       "dtypes": [str(d) for d in big.dtypes], "nulls": int(big.maybe.isna().sum()),
       "x": float(big.x.sum()), "last": str(big["at"].max())}`);
    expect(summary).toEqual({
      rows: 1_000_000,
      ids: 500_000_500_000,
      labels: 1000,
      dtypes: ['int64', 'float64', 'object', 'datetime64[ns]', 'Int64'],
      nulls: 100_000,
      x: 750_000_750_000,
      last: '2020-01-12 13:46:40',
    });
  });

  it('refuses a result over the row budget and stays usable', async () => {
    const attempt = database.extract('SELECT * FROM big', kernel, 'too_big', { maxRows: 100_000 });
    await expect(attempt).rejects.toBeInstanceOf(ExtractTooLargeError);
    expect((await kernel.run('too_big')).error?.name).toBe('NameError');
    expect((await database.query('SELECT count(*) FROM big')).rows).toEqual([[1_000_000]]);
  });

  it('stops an extraction that runs out of time mid-stream, and the next one works', async () => {
    // Rows stream until the 150,000th, where the server stalls past the limit.
    const stalling =
      'SELECT id, CASE WHEN id = 150000 THEN (SELECT count(*) FROM generate_series(1, 500000000)) ELSE 0 END AS pause FROM big ORDER BY id';
    const attempt = database.extract(stalling, kernel, 'stalled', { timeoutMs: 2000 });
    await expect(attempt).rejects.toThrow(/ran longer than 2000 ms/);
    expect((await kernel.run('stalled')).error?.name).toBe('NameError');
    const after = await database.extract('SELECT * FROM big ORDER BY id LIMIT 200000', kernel, 'after');
    expect(after.rows).toBe(200_000);
    expect(await inKernel('out = int(after.id.sum())')).toBe(20_000_100_000);
  });

  it('cancels an extraction through an AbortSignal, on the server too', async () => {
    const controller = new AbortController();
    const attempt = database.extract('SELECT id, pg_sleep(0.01) FROM big', kernel, 'cancelled', {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 500);
    await expect(attempt).rejects.toBeInstanceOf(QueryCancelledError);
    const admin = await adminClient(scratch.name);
    try {
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%pg_sleep(0.01)%' AND state = 'active' AND pid <> pg_backend_pid()",
      );
      expect(rows[0]?.n).toBe(0);
    } finally {
      await admin.end();
    }
    expect((await database.query('SELECT 1 AS one')).rows).toEqual([[1]]);
  });

  it('runs nothing past the statement even with the guard off: one statement per extraction', async () => {
    const unguarded = await PostgresDatabase.connect({
      name: 'shop',
      url: scratch.url,
      limits: LIMITS,
      logger,
      guard: (sql) => ({ ok: true, sql }),
    });
    try {
      const smuggled = 'SELECT 1) AS x; COMMIT; DELETE FROM types; SELECT * FROM (SELECT 1';
      await expect(unguarded.extract(smuggled, kernel, 'smuggled')).rejects.toThrow(/multiple commands/);
    } finally {
      await unguarded.close();
    }
    expect((await database.query('SELECT count(*) FROM types')).rows).toEqual([[3]]);
  });
});
