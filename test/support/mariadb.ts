/**
 * Integration tests use a real MySQL/MariaDB server (scripts/ensure-mariadb.sh provides one and its
 * admin URL). Each test file makes its own database and drops it afterwards. A missing server is a
 * failure that says what to do, never a skip.
 */
import { randomBytes } from 'node:crypto';
import {
  adminConnection,
  createScratchDatabase,
  mysqlAdminUrl,
  type ScratchDatabase,
} from '../../bench/mysql-admin.js';

export { adminConnection, mysqlAdminUrl };

/** A database of the test file's own; `drop` removes it. */
export type TestDatabase = ScratchDatabase;

export const createTestDatabase: (prefix: string) => Promise<TestDatabase> = createScratchDatabase;

export interface TestAccount {
  user: string;
  /** A URL for this account on `database`. */
  url(database: string): string;
  drop(): Promise<void>;
}

/**
 * A MySQL account of its own, with a unique name, for tests that compare what different rights can reach.
 * `grants` are the ON … clauses, e.g. `['ALL ON *.*']` (a privileged account) or ``['SELECT ON `db`.*']``.
 * Created for both `'%'` and `'localhost'`, as MariaDB's anonymous `''@'localhost'` would otherwise win.
 */
export async function createTestAccount(prefix: string, grants: readonly string[]): Promise<TestAccount> {
  const user = `${prefix}_${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const hosts = ['%', 'localhost'];
  const admin = await adminConnection();
  try {
    for (const host of hosts) {
      await admin.query('CREATE USER ?@? IDENTIFIED BY ?', [user, host, password]);
      for (const grant of grants) await admin.query(`GRANT ${grant} TO ?@?`, [user, host]);
    }
  } finally {
    await admin.end();
  }
  return {
    user,
    url(database) {
      const url = new URL(mysqlAdminUrl());
      url.username = user;
      url.password = password;
      url.pathname = `/${database}`;
      return url.toString();
    },
    async drop() {
      const connection = await adminConnection();
      await connection.query('DROP USER IF EXISTS ?@?, ?@?', [user, hosts[0], user, hosts[1]]);
      await connection.end();
    },
  };
}
