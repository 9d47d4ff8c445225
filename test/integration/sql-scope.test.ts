/**
 * The schema scope against a real MariaDB and a real SQLite file. MySQL runs every case on two accounts: a
 * read-only one (SELECT on the database and the configured extra schema) and a privileged one (ALL ON *.*) that
 * could run every hostile statement if the guard let it through, which the test shows first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MysqlDatabase } from '../../src/db/mysql-database.js';
import { openDatabase } from '../../src/db/open-database.js';
import { SqliteDatabase } from '../../src/db/sqlite-database.js';
import { QueryFailedError, SqlRejectedError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import type { Database } from '../../src/ports/database.js';
import {
  adminConnection,
  createTestAccount,
  createTestDatabase,
  type TestAccount,
  type TestDatabase,
} from '../support/mariadb.js';
import { LIMITS, type SampleDatabase, sampleMysql, sampleSqlite } from '../support/sample-databases.js';
import { EXTRA_SCHEMA, IN_SCOPE, OUT_OF_SCOPE, OWN_SCHEMA, type ScopeRefusal } from '../support/sql-cases.js';

const logger = createLogger({ level: 'silent' });
const mysqlOut = OUT_OF_SCOPE.filter(([dialect]) => dialect === 'mysql');
const mysqlIn = IN_SCOPE.filter(([dialect]) => dialect === 'mysql');
const sqliteOut = OUT_OF_SCOPE.filter(([dialect]) => dialect === 'sqlite');
const sqliteIn = IN_SCOPE.filter(([dialect]) => dialect === 'sqlite');

describe('the schema scope on MariaDB', () => {
  let fixture: SampleDatabase;
  let own: string;
  let extra: TestDatabase;
  let other: TestDatabase;
  let readonlyAccount: TestAccount;
  let privilegedAccount: TestAccount;
  const databases: Record<'read-only' | 'privileged', Database | undefined> = {
    'read-only': undefined,
    privileged: undefined,
  };
  /** The cases name placeholder schemas; these are the real ones. */
  const real = (sql: string) =>
    sql.replaceAll(OWN_SCHEMA, own).replaceAll(EXTRA_SCHEMA, extra.name).replaceAll('tally_other', other.name);

  beforeAll(async () => {
    fixture = await sampleMysql();
    own = new URL(fixture.location).pathname.slice(1);
    extra = await createTestDatabase('tally_archive');
    other = await createTestDatabase('tally_other');
    const admin = await adminConnection();
    try {
      await admin.query(`CREATE TABLE \`${extra.name}\`.old_orders (id INT PRIMARY KEY, customer VARCHAR(40))`);
      await admin.query(`INSERT INTO \`${extra.name}\`.old_orders VALUES (1, 'Ann'), (7, 'Zoe')`);
      await admin.query(`CREATE TABLE \`${other.name}\`.secrets (id INT PRIMARY KEY, secret VARCHAR(40))`);
      await admin.query(`INSERT INTO \`${other.name}\`.secrets VALUES (1, 'not for the model')`);
    } finally {
      await admin.end();
    }
    readonlyAccount = await createTestAccount('tally_scope_ro', [
      `SELECT ON \`${own}\`.*`,
      `SELECT ON \`${extra.name}\`.*`,
    ]);
    privilegedAccount = await createTestAccount('tally_scope_root', ['ALL ON *.*']);
    databases['read-only'] = await MysqlDatabase.connect({
      name: 'shop',
      url: readonlyAccount.url(own),
      schemas: [extra.name],
      limits: LIMITS,
      logger,
    });
    // Through openDatabase, as tally opens it from DATABASE_URL and DATABASE_SCHEMAS_<NAME>.
    databases.privileged = await openDatabase(
      { name: 'shop', url: privilegedAccount.url(own), schemas: [extra.name] },
      LIMITS,
      logger,
    );
  });
  afterAll(async () => {
    for (const database of Object.values(databases)) await database?.close();
    await readonlyAccount?.drop();
    await privilegedAccount?.drop();
    await other?.drop();
    await extra?.drop();
    await fixture?.drop();
  });

  const allowed = (refusal: ScopeRefusal): string =>
    ({
      schema: `Only the tables of the ${own}, ${extra.name} schemas can be read (unqualified names are in ${own})`,
      show: 'Allowed: SHOW [FULL] TABLES',
      statement: 'Only one read-only statement is allowed',
    })[refusal];

  it('gives the privileged account the reach that makes the cases dangerous: only the guard stops it', async () => {
    const unguarded = await MysqlDatabase.connect({
      name: 'shop',
      url: privilegedAccount.url(own),
      limits: LIMITS,
      logger,
      guard: (sql) => ({ ok: true, sql }),
    });
    try {
      expect((await unguarded.query('SELECT User FROM mysql.user')).rows.length).toBeGreaterThan(0);
      expect((await unguarded.query(`SELECT secret FROM \`${other.name}\`.secrets`)).rows).toEqual([
        ['not for the model'],
      ]);
      expect((await unguarded.query('SHOW PROCESSLIST')).rows.length).toBeGreaterThan(0);
    } finally {
      await unguarded.close();
    }
  });

  it('keeps the read-only account out of other schemas even without the guard (the grants matter too)', async () => {
    const unguarded = await MysqlDatabase.connect({
      name: 'shop',
      url: readonlyAccount.url(own),
      limits: LIMITS,
      logger,
      guard: (sql) => ({ ok: true, sql }),
    });
    try {
      await expect(unguarded.query(`SELECT secret FROM \`${other.name}\`.secrets`)).rejects.toBeInstanceOf(
        QueryFailedError,
      );
      await expect(unguarded.query('SELECT User FROM mysql.user')).rejects.toBeInstanceOf(QueryFailedError);
    } finally {
      await unguarded.close();
    }
  });

  describe.each(['read-only', 'privileged'] as const)('on the %s account', (account) => {
    it.each(mysqlOut)('refuses %j', async (_dialect, sql, reason, refusal) => {
      const attempt = databases[account]?.query(real(sql));
      await expect(attempt).rejects.toBeInstanceOf(SqlRejectedError);
      await expect(attempt).rejects.toThrow(real(reason));
      await expect(attempt).rejects.toThrow(allowed(refusal));
    });

    it.each(mysqlIn)('runs %j', async (_dialect, sql) => {
      const result = await databases[account]?.query(real(sql));
      expect(result?.columns.length).toBeGreaterThan(0);
    });
  });

  it('reads the configured extra schema and its own, and nothing of the other', async () => {
    const database = databases['read-only'];
    const joined = await database?.query(
      `SELECT o.customer, a.customer FROM orders o JOIN \`${extra.name}\`.old_orders a ON a.id = o.id`,
    );
    expect(joined?.rows).toEqual([['Ann', 'Ann']]);
    const tables = await database?.query(
      'SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME',
    );
    expect(tables?.rows).toEqual([['orders']]);
    expect((await database?.listTables())?.map((table) => table.name)).toEqual(['orders']);
    expect((await database?.describeTable('orders'))?.columns[0]?.name).toBe('id');
  });
});

describe('the schema scope on SQLite', () => {
  let fixture: SampleDatabase;
  let database: Database;

  beforeAll(async () => {
    fixture = await sampleSqlite();
    database = await SqliteDatabase.open({ name: 'shop', path: fixture.location, limits: LIMITS });
  });
  afterAll(async () => {
    await database?.close();
    await fixture?.drop();
  });

  it.each(sqliteOut)('refuses %j', async (_dialect, sql, reason, refusal) => {
    const attempt = database.query(sql);
    await expect(attempt).rejects.toBeInstanceOf(SqlRejectedError);
    await expect(attempt).rejects.toThrow(reason);
    await expect(attempt).rejects.toThrow(
      refusal === 'schema' ? 'Only the tables of this SQLite file can be read' : 'Only one read-only statement',
    );
  });

  it.each(sqliteIn)('runs %j', async (_dialect, sql) => {
    expect((await database.query(sql)).columns.length).toBeGreaterThan(0);
  });

  it('still refuses ATTACH when the guard is bypassed: the worker runs only statements that return rows', async () => {
    const unguarded = await SqliteDatabase.open({
      name: 'shop',
      path: fixture.location,
      limits: LIMITS,
      guard: (sql) => ({ ok: true, sql }),
    });
    try {
      await expect(unguarded.query("ATTACH DATABASE ':memory:' AS aux")).rejects.toBeInstanceOf(QueryFailedError);
    } finally {
      await unguarded.close();
    }
  });
});
