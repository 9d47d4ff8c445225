/**
 * The same telco_db loaded into SQLite, MariaDB and PostgreSQL extracts to byte-identical, identically typed
 * DataFrames. PostgreSQL holds the column names in lower case, so the SQL names the columns it returns: the same
 * statement runs unchanged on all three.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.js';
import { MysqlDatabase } from '../../src/db/mysql/mysql-database.js';
import { PostgresDatabase } from '../../src/db/postgres/postgres-database.js';
import { SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import type { Kernel } from '../../src/ports/sandbox.js';
import { loadTelco } from '../../telco_data/index.js';
import { cleanUp } from '../support/clean-up.js';
import { createTestDatabase, type TestDatabase } from '../support/mariadb.js';
import { createTestDatabase as createPostgresDatabase } from '../support/postgres.js';
import { LIMITS } from '../support/sample-databases.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

const DEMO_SQL = `SELECT p.customerID AS "customerID", p.Contract AS "Contract", p.PaymentMethod AS "PaymentMethod",
  p.MonthlyCharges AS "MonthlyCharges", s.InternetService AS "InternetService", s.tenure, c.Churn AS "Churn"
FROM user_payments p
JOIN user_services s ON s.customerID = p.customerID
JOIN user_churn c ON c.customerID = p.customerID`;

let fixture: TestSandbox;
let kernel: Kernel;
let folder: string;
let mariadb: TestDatabase;
let postgres: TestDatabase;

beforeAll(async () => {
  fixture = await startTestSandbox();
  kernel = await fixture.sandbox.acquire('telco-extract');
  folder = await mkdtemp(join(tmpdir(), 'tally-telco-'));
  mariadb = await createTestDatabase('tally_telco');
  await loadTelco({ target: `sqlite:${join(folder, 'telco.db')}` });
  await loadTelco({ target: mariadb.url });
  postgres = await createPostgresDatabase('tally_telco');
  await loadTelco({ url: postgres.url });
});
afterAll(() =>
  cleanUp(
    () => mariadb?.drop(),
    () => postgres?.drop(),
    () => folder && rm(folder, { recursive: true, force: true }),
    () => fixture?.close(),
  ),
);

describe('telco_db from any backend', () => {
  it('extracts to the same bytes and dtypes', async () => {
    const sqlite = await SqliteDatabase.open({ name: 'telco', path: join(folder, 'telco.db'), limits: LIMITS });
    const mysql = await MysqlDatabase.connect({
      name: 'telco',
      url: mariadb.url,
      limits: LIMITS,
      logger: createLogger({ level: 'silent' }),
    });
    const pg = await PostgresDatabase.connect({
      name: 'telco',
      url: postgres.url,
      limits: LIMITS,
      logger: createLogger({ level: 'silent' }),
    });
    try {
      const fromSqlite = await sqlite.extract(`${DEMO_SQL} ORDER BY p.customerID`, kernel, 'from_sqlite');
      const fromMysql = await mysql.extract(`${DEMO_SQL} ORDER BY p.customerID`, kernel, 'from_mysql');
      expect(fromSqlite.rows).toBe(5634);
      expect(fromMysql.rows).toBe(5634);
      expect(fromMysql.sha256).toBe(fromSqlite.sha256);
      expect(fromMysql.columns.map((column) => column.dtype)).toEqual(fromSqlite.columns.map((column) => column.dtype));
      const same = await kernel.run('from_sqlite.equals(from_mysql)');
      expect(same.result?.text).toBe('True');
      const fromPostgres = await pg.extract(`${DEMO_SQL} ORDER BY p.customerID`, kernel, 'from_postgres');
      expect(fromPostgres.rows).toBe(5634);
      expect(fromPostgres.sha256).toBe(fromSqlite.sha256);
      expect(fromPostgres.columns.map((column) => column.dtype)).toEqual(
        fromSqlite.columns.map((column) => column.dtype),
      );
      expect((await kernel.run('from_sqlite.equals(from_postgres)')).result?.text).toBe('True');
    } finally {
      await sqlite.close();
      await mysql.close();
      await pg.close();
    }
  });
});
