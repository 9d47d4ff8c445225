/** The same telco_db loaded into SQLite and MariaDB extracts to byte-identical, identically typed DataFrames. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MysqlDatabase } from '../../src/db/mysql-database.js';
import { SqliteDatabase } from '../../src/db/sqlite-database.js';
import { createLogger } from '../../src/logger.js';
import type { Kernel } from '../../src/ports/sandbox.js';
import { loadTelco } from '../../telco_data/index.js';
import { cleanUp } from '../support/clean-up.js';
import { createTestDatabase, type TestDatabase } from '../support/mariadb.js';
import { LIMITS } from '../support/sample-databases.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

const DEMO_SQL = `SELECT p.customerID, p.Contract, p.PaymentMethod, p.MonthlyCharges, s.InternetService, s.tenure, c.Churn
FROM user_payments p
JOIN user_services s ON s.customerID = p.customerID
JOIN user_churn c ON c.customerID = p.customerID`;

let fixture: TestSandbox;
let kernel: Kernel;
let folder: string;
let mariadb: TestDatabase;

beforeAll(async () => {
  fixture = await startTestSandbox();
  kernel = await fixture.sandbox.acquire('telco-extract');
  folder = await mkdtemp(join(tmpdir(), 'tally-telco-'));
  mariadb = await createTestDatabase('tally_telco');
  await loadTelco({ target: `sqlite:${join(folder, 'telco.db')}` });
  await loadTelco({ target: mariadb.url });
});
afterAll(() =>
  cleanUp(
    () => mariadb?.drop(),
    () => folder && rm(folder, { recursive: true, force: true }),
    () => fixture?.close(),
  ),
);

describe('telco_db from either backend', () => {
  it('extracts to the same bytes and dtypes', async () => {
    const sqlite = await SqliteDatabase.open({ name: 'telco', path: join(folder, 'telco.db'), limits: LIMITS });
    const mysql = await MysqlDatabase.connect({
      name: 'telco',
      url: mariadb.url,
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
    } finally {
      await sqlite.close();
      await mysql.close();
    }
  });
});
