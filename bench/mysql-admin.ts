/**
 * The MySQL/MariaDB admin account that benchmarks and tests use to make their own databases and accounts:
 * TALLY_TEST_MYSQL_URL, the URL scripts/setup.sh saved, or root on localhost. (test/support/mariadb.ts
 * re-exports these; product-side tooling never imports from test/.)
 */
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
