/**
 * The same small `orders` table in a real MariaDB database, a real PostgreSQL database and a real
 * SQLite file, for suites that run against every Database implementation.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import type pg from 'pg';
import type { DatabaseLimits } from '../../src/db/table-metadata.js';
import { adminConnection, createTestDatabase } from './mariadb.js';
import { createTestDatabase as createPostgresDatabase, adminClient as postgresAdminClient } from './postgres.js';

export const LIMITS: DatabaseLimits = {
  queryTimeoutMs: 10_000,
  extractTimeoutMs: 60_000,
  extractMaxRows: 2_000_000,
  extractMaxBytes: 1024 ** 3,
};

export const ORDERS = [
  [1, 'Ann', '120.50', '2024-01-05', 'first order', 1],
  [2, 'Bob', '80.00', '2024-01-06', null, 0],
  [3, 'Chloé', '15.25', '2024-02-11', '', 1],
  [4, 'Ann', '42.00', '2024-03-01', 'gift; wrap it', 0],
  [5, 'Dmitri', '999.99', '2024-03-15', null, null],
] as const;

export interface SampleDatabase {
  /** What to hand the connector: a mysql:// or postgres:// URL, or a file path. */
  location: string;
  /** Runs SQL with full rights, outside tally, to check what happened. */
  admin(sql: string): Promise<unknown[]>;
  drop(): Promise<void>;
}

export async function sampleMysql(): Promise<SampleDatabase> {
  const database = await createTestDatabase('tally_contract');
  const admin = await adminConnection(database.name);
  await admin.query(`CREATE TABLE orders (
      id INT PRIMARY KEY,
      customer VARCHAR(40) NOT NULL COMMENT 'who ordered',
      amount DECIMAL(10,2) NOT NULL,
      placed DATE NOT NULL,
      note TEXT NULL,
      paid TINYINT(1) NULL,
      UNIQUE KEY placed_customer (placed, customer)
    ) COMMENT 'one row per order'`);
  await admin.query('INSERT INTO orders VALUES ?', [ORDERS.map((row) => [...row])]);
  return {
    location: database.url,
    async admin(sql) {
      const [rows] = await admin.query(sql);
      return rows as unknown[];
    },
    async drop() {
      await admin.end();
      await database.drop();
    },
  };
}

export async function samplePostgres(): Promise<SampleDatabase> {
  const database = await createPostgresDatabase('tally_contract');
  const admin = await postgresAdminClient(database.name);
  // The types whose pandas dtypes match the other two: numeric for DECIMAL, boolean for TINYINT(1).
  await admin.query(`CREATE TABLE orders (
      id integer PRIMARY KEY,
      customer varchar(40) NOT NULL,
      amount numeric(10,2) NOT NULL,
      placed date NOT NULL,
      note text NULL,
      paid boolean NULL,
      CONSTRAINT placed_customer UNIQUE (placed, customer)
    );
    COMMENT ON TABLE orders IS 'one row per order';
    COMMENT ON COLUMN orders.customer IS 'who ordered'`);
  for (const row of ORDERS) {
    const paid = row[5] === null ? null : row[5] === 1;
    await admin.query('INSERT INTO orders VALUES ($1, $2, $3, $4, $5, $6)', [...row.slice(0, 5), paid]);
  }
  return {
    location: database.url,
    async admin(sql) {
      // A string of several statements gives one result per statement: the last one is what was asked.
      const result: pg.QueryResult | pg.QueryResult[] = await admin.query(sql);
      return Array.isArray(result) ? (result.at(-1)?.rows ?? []) : result.rows;
    },
    async drop() {
      await admin.end();
      await database.drop();
    },
  };
}

export async function sampleSqlite(): Promise<SampleDatabase> {
  const folder = await mkdtemp(join(tmpdir(), 'tally-sqlite-'));
  const path = join(folder, 'sample.db');
  const db = new BetterSqlite(path);
  db.exec(`CREATE TABLE orders (
      id INTEGER PRIMARY KEY,
      customer VARCHAR(40) NOT NULL,
      amount DECIMAL(10,2) NOT NULL,
      placed DATE NOT NULL,
      note TEXT NULL,
      paid BOOLEAN NULL,
      UNIQUE (placed, customer)
    )`);
  const insert = db.prepare('INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)');
  for (const row of ORDERS) insert.run(row[0], row[1], Number(row[2]), row[3], row[4], row[5]);
  return {
    location: path,
    async admin(sql) {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all();
      statement.run();
      return [];
    },
    async drop() {
      db.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
