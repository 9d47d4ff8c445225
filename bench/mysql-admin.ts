/**
 * The MySQL/MariaDB admin account that benchmarks and tests use to make their own databases and accounts:
 * TALLY_TEST_MYSQL_URL, the URL scripts/setup.sh saved, or root on localhost. (test/support/mariadb.ts
 * re-exports these; product-side tooling never imports from test/.)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';

const SAVED_URL = join(import.meta.dirname, '..', '.tally', 'test-mysql-url');

/** Admin URL without a database: TALLY_TEST_MYSQL_URL, the one setup saved, or root on localhost. */
export function mysqlAdminUrl(): string {
  if (process.env.TALLY_TEST_MYSQL_URL) return process.env.TALLY_TEST_MYSQL_URL;
  if (existsSync(SAVED_URL)) return readFileSync(SAVED_URL, 'utf8').trim();
  return 'mysql://root@127.0.0.1:3306';
}

export async function adminConnection(database?: string): Promise<mysql.Connection> {
  try {
    return await mysql.createConnection({
      uri: mysqlAdminUrl(),
      ...(database === undefined ? {} : { database }),
      multipleStatements: true,
    });
  } catch (error) {
    throw new Error(
      `No MySQL/MariaDB server answers at ${mysqlAdminUrl().replace(/:[^:@/]*@/, ':***@')} (${String(error)}). ` +
        `Run 'npm run test:all', which starts one, or set TALLY_TEST_MYSQL_URL.`,
    );
  }
}

/** A database of its own on the admin account's server, for one benchmark run; `drop` removes it. */
export interface ScratchDatabase {
  name: string;
  /** Admin URL including the database. */
  url: string;
  drop(): Promise<void>;
}

export async function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = await adminConnection();
  try {
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await admin.end();
  }
  const url = new URL(mysqlAdminUrl());
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const connection = await adminConnection();
      try {
        await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await connection.end();
      }
    },
  };
}
