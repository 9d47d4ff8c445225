/**
 * The schema scope against a real MariaDB and a real SQLite file. MySQL runs every case on two accounts: a
 * read-only one (SELECT on the database and the configured extra schema) and a privileged one (ALL ON *.*) whose
 * grants stop none of the hostile statements. The test shows that first, for each of them: with the guard off the
 * privileged account's statement runs (or runs until its time limit), or the server fails it for another reason
 * than permission (a name spelled in a case or quotes this server does not take, a table that is not there).
 * Statements in scope must return the sample tables' known rows on both accounts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryFailedError, QueryTimeoutError, SqlRejectedError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { MysqlDatabase } from '../../src/db/mysql/mysql-database.js';
import { openDatabase } from '../../src/db/open-database.js';
import { SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import type { Database, QueryResult } from '../../src/ports/database.js';
import {
  adminConnection,
  createTestAccount,
  createTestDatabase,
  type TestAccount,
  type TestDatabase,
} from '../support/mariadb.js';
import { LIMITS, ORDERS, type SampleDatabase, sampleMysql, sampleSqlite } from '../support/sample-databases.js';
import { EXTRA_SCHEMA, IN_SCOPE, OUT_OF_SCOPE, OWN_SCHEMA, type ScopeRefusal } from '../support/sql-cases.js';

const logger = createLogger({ level: 'silent' });
/** The cases of one dialect, without it, so that a test's name shows the statement. */
const outOfScope = (wanted: string) =>
  OUT_OF_SCOPE.filter(([dialect]) => dialect === wanted).map(
    ([, sql, reason, refusal]): [string, string, ScopeRefusal] => [sql, reason, refusal],
  );
const inScope = (wanted: string) => IN_SCOPE.filter(([dialect]) => dialect === wanted).map(([, sql]) => sql);
const mysqlOut = outOfScope('mysql');
const mysqlIn = inScope('mysql');
const sqliteOut = outOfScope('sqlite');
const sqliteIn = inScope('sqlite');

/** MariaDB's "not allowed" errors: access denied to a database, table, column, routine or for a privilege. */
const PERMISSION_ERRNOS = new Set([1044, 1045, 1142, 1143, 1227, 1370]);

/**
 * What an in-scope statement must return from the sample tables (test/support/sample-databases.ts and the
 * archive's `old_orders` (1 Ann, 7 Zoe)): the rows, in any order, of the columns named (by name or position;
 * default all). Statements without an entry fail, so a new case says what it returns.
 */
interface Expected {
  columns?: Array<string | number>;
  rows: unknown;
}
const customers = ORDERS.map(([, customer]) => [customer]);
const orderColumns = [['id'], ['customer'], ['amount'], ['placed'], ['note'], ['paid']];
const indexColumns = [
  ['PRIMARY', 'id'],
  ['placed_customer', 'placed'],
  ['placed_customer', 'customer'],
];
const IN_SCOPE_ROWS: Record<string, Expected> = {
  'SELECT * FROM tally_shop.orders': { rows: ORDERS.map((row) => [...row]) },
  'SELECT o.customer FROM `tally_shop`.`orders` AS o': { rows: customers },
  'SELECT tally_shop.orders.id FROM tally_shop.orders': { rows: ORDERS.map(([id]) => [id]) },
  'SELECT * FROM tally_archive.old_orders': {
    rows: [
      [1, 'Ann'],
      [7, 'Zoe'],
    ],
  },
  'SELECT o.id, a.id FROM orders o JOIN tally_archive.old_orders a ON a.id = o.id': { rows: [[1, 1]] },
  'SELECT customer FROM orders UNION SELECT customer FROM tally_archive.old_orders': {
    rows: [['Ann'], ['Bob'], ['Chloé'], ['Dmitri'], ['Zoe']],
  },
  'SELECT * FROM orders WHERE id IN (SELECT id FROM tally_archive.old_orders)': { rows: [[...ORDERS[0]]] },
  'SELECT TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()': {
    columns: ['TABLE_NAME'],
    rows: [['orders']],
  },
  'SELECT c.COLUMN_NAME, c.DATA_TYPE FROM information_schema.COLUMNS c JOIN information_schema.TABLES t ON t.TABLE_NAME = c.TABLE_NAME AND t.TABLE_SCHEMA = c.TABLE_SCHEMA WHERE c.TABLE_SCHEMA = DATABASE()':
    {
      rows: [
        ['id', 'int'],
        ['customer', 'varchar'],
        ['amount', 'decimal'],
        ['placed', 'date'],
        ['note', 'text'],
        ['paid', 'tinyint'],
      ],
    },
  'SELECT * FROM INFORMATION_SCHEMA.key_column_usage WHERE TABLE_SCHEMA = DATABASE()': {
    columns: ['CONSTRAINT_NAME', 'COLUMN_NAME'],
    rows: indexColumns,
  },
  'SELECT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()': {
    rows: indexColumns.map(([index]) => [index]),
  },
  'WITH user AS (SELECT customer FROM orders) SELECT * FROM user': { rows: customers },
  'WITH t AS (SELECT customer, amount FROM orders) SELECT t.customer, SUM(t.amount) FROM t GROUP BY t.customer': {
    rows: [
      ['Ann', '162.50'],
      ['Bob', '80.00'],
      ['Chloé', '15.25'],
      ['Dmitri', '999.99'],
    ],
  },
  "SELECT * FROM (SELECT customer FROM orders) AS d WHERE d.customer LIKE 'A%'": { rows: [['Ann'], ['Ann']] },
  'SELECT COUNT(*) AS n FROM (SELECT * FROM orders) AS counted': { rows: [[5]] },
  "SELECT 'mysql.user' AS label, customer FROM orders": {
    rows: customers.map(([customer]) => ['mysql.user', customer]),
  },
  'SELECT `mysql.user` FROM (SELECT 1 AS `mysql.user`) AS x': { rows: [[1]] },
  'SELECT SLEEP(0.1), @@version, 1 - -1, .5 + 1.5': { columns: [0, 2, 3], rows: [[0, 2, '2.0']] },
  'SHOW TABLES': { rows: [['orders']] },
  'SHOW FULL TABLES FROM tally_shop': { rows: [['orders', 'BASE TABLE']] },
  "SHOW TABLE STATUS LIKE 'ord%'": { columns: ['Name', 'Comment'], rows: [['orders', 'one row per order']] },
  'SHOW COLUMNS FROM orders': { columns: ['Field'], rows: orderColumns },
  'SHOW FULL COLUMNS FROM tally_archive.old_orders': { columns: ['Field'], rows: [['id'], ['customer']] },
  'SHOW INDEX FROM orders': { columns: ['Key_name', 'Column_name'], rows: indexColumns },
  'SHOW CREATE TABLE orders': {
    rows: [['orders', expect.stringMatching(/^CREATE TABLE `orders` \(\n {2}`id` int/)]],
  },
  "SHOW CHARACTER SET LIKE 'utf8%'": { columns: ['Charset'], rows: expect.arrayContaining([['utf8mb4']]) },
  'DESCRIBE orders': { columns: ['Field'], rows: orderColumns },
  'DESC tally_shop.orders customer': { columns: ['Field', 'Null'], rows: [['customer', 'NO']] },
  'EXPLAIN SELECT * FROM orders WHERE id = 1': { columns: ['table', 'key'], rows: [['orders', 'PRIMARY']] },
  // SQLite: the same table, amounts as numbers
  'SELECT * FROM main.orders': {
    columns: ['id', 'customer', 'amount'],
    rows: ORDERS.map(([id, customer, amount]) => [id, customer, Number(amount)]),
  },
  'SELECT o.customer FROM "main"."orders" AS o': { rows: customers },
  "SELECT name FROM pragma_table_info('orders')": { rows: orderColumns },
  "SELECT name FROM sqlite_master WHERE type = 'table'": { rows: [['orders']] },
  'WITH temp_rows AS (SELECT * FROM orders) SELECT COUNT(*) FROM temp_rows': { rows: [[5]] },
  "SELECT 'temp.x' AS label, customer FROM orders": { rows: customers.map(([customer]) => ['temp.x', customer]) },
};

/** Checks a result against the statement's entry in IN_SCOPE_ROWS. */
function expectKnownRows(sql: string, result: QueryResult | undefined): void {
  const expected = IN_SCOPE_ROWS[sql];
  if (!expected) throw new Error(`IN_SCOPE_ROWS has no rows for ${JSON.stringify(sql)}: add what it returns`);
  const names = result?.columns.map((column) => column.name) ?? [];
  const positions = (expected.columns ?? names.map((_, index) => index)).map((column) =>
    typeof column === 'number' ? column : names.indexOf(column),
  );
  expect(positions, `columns of ${sql}: ${names.join(', ')}`).not.toContain(-1);
  const rows = (result?.rows ?? []).map((row) => positions.map((position) => row[position]));
  const byText = (left: unknown[], right: unknown[]) => JSON.stringify(left).localeCompare(JSON.stringify(right));
  expect(rows.sort(byText), sql).toEqual(
    Array.isArray(expected.rows) ? [...(expected.rows as unknown[][])].sort(byText) : expected.rows,
  );
}

/** How a statement ended on a connection without the guard: it ran, ran out of time, or the server refused it. */
async function unguardedOutcome(attempt: Promise<QueryResult> | undefined): Promise<string> {
  try {
    return `ran: ${(await attempt)?.rows.length} rows`;
  } catch (error) {
    if (error instanceof QueryTimeoutError) return 'ran until its time limit';
    if (!(error instanceof QueryFailedError)) throw error;
    const errno = (error.cause as { errno?: number } | undefined)?.errno ?? 0;
    return `${PERMISSION_ERRNOS.has(errno) ? 'not permitted' : 'failed'} (${errno}): ${error.message}`;
  }
}

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

  describe('on the privileged account without the guard', () => {
    let unguarded: Database;
    beforeAll(async () => {
      // A short time limit: SLEEP(100) and BENCHMARK are shown to run, not waited out.
      unguarded = await MysqlDatabase.connect({
        name: 'shop',
        url: privilegedAccount.url(own),
        limits: { ...LIMITS, queryTimeoutMs: 1000 },
        logger,
        guard: (sql) => ({ ok: true, sql }),
      });
    });
    afterAll(async () => {
      await unguarded?.close();
    });

    it("reads the server's accounts, another schema and other sessions: only the guard stops it", async () => {
      expect((await unguarded.query('SELECT User FROM mysql.user')).rows.length).toBeGreaterThan(0);
      expect((await unguarded.query(`SELECT secret FROM \`${other.name}\`.secrets`)).rows).toEqual([
        ['not for the model'],
      ]);
      expect((await unguarded.query('SHOW PROCESSLIST')).rows.length).toBeGreaterThan(0);
    });

    it.each(mysqlOut)('is not refused %j for want of rights', async (sql) => {
      expect(await unguardedOutcome(unguarded.query(real(sql)))).toMatch(/^(ran|failed \(\d+\))/);
    });
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
    it.each(mysqlOut)('refuses %j', async (sql, reason, refusal) => {
      const attempt = databases[account]?.query(real(sql));
      await expect(attempt).rejects.toBeInstanceOf(SqlRejectedError);
      await expect(attempt).rejects.toThrow(real(reason));
      await expect(attempt).rejects.toThrow(allowed(refusal));
    });

    it.each(mysqlIn)('runs %j and returns the known rows', async (sql) => {
      expectKnownRows(sql, await databases[account]?.query(real(sql)));
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

  it.each(sqliteOut)('refuses %j', async (sql, reason, refusal) => {
    const attempt = database.query(sql);
    await expect(attempt).rejects.toBeInstanceOf(SqlRejectedError);
    await expect(attempt).rejects.toThrow(reason);
    await expect(attempt).rejects.toThrow(
      refusal === 'schema' ? 'Only the tables of this SQLite file can be read' : 'Only one read-only statement',
    );
  });

  it.each(sqliteIn)('runs %j and returns the known rows', async (sql) => {
    expectKnownRows(sql, await database.query(sql));
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
