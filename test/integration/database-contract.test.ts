/** One contract, three real implementations: MariaDB (mysql2), PostgreSQL (pg) and an embedded SQLite file. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DatabaseUnavailableError,
  QueryCancelledError,
  QueryFailedError,
  QueryTimeoutError,
  SqlRejectedError,
} from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import type { checkReadOnlySql } from '../../src/db/guard/sql-guard.js';
import { MysqlDatabase } from '../../src/db/mysql/mysql-database.js';
import { PostgresDatabase } from '../../src/db/postgres/postgres-database.js';
import { SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import type { Database } from '../../src/ports/database.js';
import { LIMITS, type SampleDatabase, sampleMysql, samplePostgres, sampleSqlite } from '../support/sample-databases.js';

type Guard = typeof checkReadOnlySql;
const logger = createLogger({ level: 'silent' });
const letEverythingThrough: Guard = (sql) => ({ ok: true, sql });

const implementations = [
  {
    dialect: 'mysql' as const,
    sample: sampleMysql,
    open: (location: string, guard?: Guard) =>
      MysqlDatabase.connect({ name: 'shop', url: location, limits: LIMITS, logger, ...(guard ? { guard } : {}) }),
    slowSql: 'SELECT SLEEP(1) FROM orders', // one second a row, five rows: SLEEP over 1 s is refused by the guard
    writes: [
      'INSERT INTO orders VALUES (9, "Eve", 1, "2024-04-01", NULL, 0)',
      'UPDATE orders SET amount = 0',
      'DELETE FROM orders',
      'DROP TABLE orders',
      'CREATE TABLE hack (a INT)',
    ],
  },
  {
    dialect: 'postgres' as const,
    sample: samplePostgres,
    open: (location: string, guard?: Guard) =>
      PostgresDatabase.connect({ name: 'shop', url: location, limits: LIMITS, logger, ...(guard ? { guard } : {}) }),
    slowSql: 'SELECT pg_sleep(1) FROM orders',
    writes: [
      "INSERT INTO orders VALUES (9, 'Eve', 1, '2024-04-01', NULL, false)",
      'UPDATE orders SET amount = 0',
      'DELETE FROM orders',
      'DROP TABLE orders',
      'CREATE TABLE hack (a int)',
      "COPY orders FROM PROGRAM 'true'",
      'SELECT * INTO hack FROM orders',
    ],
  },
  {
    dialect: 'sqlite' as const,
    sample: sampleSqlite,
    open: (location: string, guard?: Guard) =>
      SqliteDatabase.open({ name: 'shop', path: location, limits: LIMITS, ...(guard ? { guard } : {}) }),
    slowSql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c',
    writes: [
      "INSERT INTO orders VALUES (9, 'Eve', 1, '2024-04-01', NULL, 0)",
      'UPDATE orders SET amount = 0',
      'DELETE FROM orders',
      'DROP TABLE orders',
      'CREATE TABLE hack (a INT)',
      "ATTACH DATABASE '/tmp/tally-attached.db' AS other",
    ],
  },
];

describe.each(implementations)('the $dialect database', ({ dialect, sample, open, slowSql, writes }) => {
  let fixture: SampleDatabase;
  let database: Database;

  beforeAll(async () => {
    fixture = await sample();
    database = await open(fixture.location);
  });
  afterAll(async () => {
    await database?.close();
    await fixture?.drop();
  });

  it('lists tables with exact row counts', async () => {
    const tables = await database.listTables();
    expect(tables.map(({ name, rows, rowsExact }) => ({ name, rows, rowsExact }))).toEqual([
      { name: 'orders', rows: 5, rowsExact: true },
    ]);
    expect(database.dialect).toBe(dialect);
  });

  it('describes a table: types, kinds, nullability, keys and sample values', async () => {
    const table = await database.describeTable('orders');
    const byName = Object.fromEntries(table.columns.map((column) => [column.name, column]));
    expect(table.columns.map((column) => column.name)).toEqual(['id', 'customer', 'amount', 'placed', 'note', 'paid']);
    expect(byName.id).toMatchObject({ kind: 'integer', key: 'primary', nullable: false });
    expect(byName.customer).toMatchObject({ kind: 'text', nullable: false });
    expect(byName.amount).toMatchObject({ kind: 'decimal' });
    expect(byName.placed).toMatchObject({ kind: 'date' });
    expect(byName.note?.nullable).toBe(true);
    expect(byName.customer?.samples).toEqual(['Ann', 'Bob', 'Chloé', 'Dmitri']);
    if (dialect !== 'sqlite') {
      expect(byName.customer?.comment).toBe('who ordered');
      expect(table.comment).toBe('one row per order');
      expect(byName.paid?.type).toBe(dialect === 'mysql' ? 'tinyint(1)' : 'boolean');
    }
  });

  it('says which tables exist when asked about one that does not', async () => {
    await expect(database.describeTable('clients')).rejects.toThrow(/no table named 'clients'.*orders/);
  });

  it('runs a read-only query and caps the rows it returns', async () => {
    const result = await database.query(
      'SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer ORDER BY customer',
    );
    expect(result.columns.map((column) => column.name)).toEqual(['customer', 'total']);
    expect(result.rows.map((row) => [row[0], Number(row[1])])).toEqual([
      ['Ann', 162.5],
      ['Bob', 80],
      ['Chloé', 15.25],
      ['Dmitri', 999.99],
    ]);
    expect(result.truncated).toBe(false);
    const capped = await database.query('SELECT id FROM orders ORDER BY id', { maxRows: 2 });
    expect(capped.rows).toEqual([[1], [2]]);
    expect(capped.truncated).toBe(true);
    expect((await database.query('SELECT COUNT(*) FROM orders')).rows[0]?.map(Number)).toEqual([5]);
  });

  it('hands SQL errors back as QueryFailedError with the server message', async () => {
    const failure = database.query('SELECT no_such_column FROM orders');
    await expect(failure).rejects.toBeInstanceOf(QueryFailedError);
    await expect(failure).rejects.toThrow(/no_such_column/);
  });

  it('rejects writes with a message that says what is allowed, and nothing changes', async () => {
    for (const sql of writes) {
      const attempt = database.query(sql);
      await expect(attempt).rejects.toBeInstanceOf(SqlRejectedError);
      await expect(attempt).rejects.toThrow(/Only one read-only statement/);
    }
    const [state] = (await fixture.admin('SELECT COUNT(*) AS n, SUM(amount) AS total FROM orders')) as Array<{
      n: unknown;
      total: unknown;
    }>;
    expect([Number(state?.n), Number(state?.total)]).toEqual([5, 1257.74]);
  });

  it('still refuses writes that get past the guard: the connection itself is read-only', async () => {
    const unguarded = await open(fixture.location, letEverythingThrough);
    try {
      for (const sql of writes) {
        await expect(unguarded.query(sql), sql).rejects.toBeInstanceOf(QueryFailedError);
      }
      if (dialect === 'mysql') {
        // Flipping the session back does not last: read-only is set again before every statement.
        await unguarded.query('SET SESSION TRANSACTION READ WRITE').catch(() => {});
        await expect(unguarded.query('DELETE FROM orders')).rejects.toThrow(/READ ONLY/);
      }
      if (dialect === 'postgres') {
        // Each statement is a READ ONLY transaction of its own: a default changed by one does not reach the next.
        await unguarded.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE').catch(() => {});
        await unguarded.query('SET default_transaction_read_only = off').catch(() => {});
        await expect(unguarded.query('DELETE FROM orders')).rejects.toThrow(/read-only transaction/);
      }
    } finally {
      await unguarded.close();
    }
    const [state] = await fixture.admin('SELECT COUNT(*) AS n FROM orders');
    expect(Number((state as { n: number }).n)).toBe(5);
    expect((await fixture.admin("SELECT COUNT(*) AS n FROM orders WHERE customer = 'Eve'")).length).toBe(1);
  });

  it('stops a query at its time limit and keeps working', async () => {
    const started = Date.now();
    await expect(database.query(slowSql, { timeoutMs: 500 })).rejects.toBeInstanceOf(QueryTimeoutError);
    expect(Date.now() - started).toBeLessThan(4500);
    expect((await database.query('SELECT COUNT(*) FROM orders')).rows[0]?.map(Number)).toEqual([5]);
  });

  it('cancels a query through an AbortSignal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await expect(database.query(slowSql, { signal: controller.signal })).rejects.toBeInstanceOf(QueryCancelledError);
    expect((await database.query('SELECT 1')).rows).toHaveLength(1);
  });

  it('says which setting to check when the database is not there', async () => {
    const missing =
      dialect === 'sqlite' ? '/nonexistent/x.db' : fixture.location.replace(/\/[^/]+$/, '/no_such_database');
    const attempt = open(missing);
    await expect(attempt).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(attempt).rejects.toThrow(/DATABASE_URL/);
  });
});
