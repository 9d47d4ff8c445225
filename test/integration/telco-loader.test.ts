/**
 * The telco loader against a real MariaDB (test/support/mariadb.ts), a real PostgreSQL
 * (test/support/postgres.ts) and real SQLite files: what the report says was injected is exactly what
 * the database holds, the test part is clean, re-running changes nothing, every backend holds the same
 * values, and tally's read-only MariaDB account can read and do nothing else (the PostgreSQL role:
 * telco-loader-postgres.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mysqlTypeNameEncoding } from '../../src/db/column-kind.js';
import { postgresTypeNameEncoding } from '../../src/db/postgres/postgres-types.js';
import { createReadonlyUser } from '../../telco_data/create-readonly-user.js';
import { formatTelcoReport } from '../../telco_data/format-report.js';
import { BLANKABLE_PAYMENT_COLUMNS } from '../../telco_data/inject-damage.js';
import { type LoadTelcoOptions, loadTelco, type TelcoLoadReport } from '../../telco_data/load-telco.js';
import { parseTelcoCsv } from '../../telco_data/parse-telco-csv.js';
import { SERVICE_COLUMNS, TELCO_COLUMNS } from '../../telco_data/telco-customer.js';
import { TELCO_TABLES } from '../../telco_data/telco-tables.js';
import { cleanUp } from '../support/clean-up.js';
import { adminConnection, createTestDatabase, type TestDatabase } from '../support/mariadb.js';
import {
  createTestDatabase as createPostgresDatabase,
  type TestDatabase as PostgresDatabase,
  adminClient as postgresAdmin,
} from '../support/postgres.js';
import { type Backend, mysqlBackend, postgresBackend, type Row, sqliteBackend } from '../support/telco-backends.js';

const ids = async (backend: Backend, table: string): Promise<string[]> =>
  (await backend.all(`SELECT customerID FROM ${table} ORDER BY customerID`)).map((row) => String(row.customerID));

const without = (items: readonly string[], excluded: Iterable<string>): string[] => {
  const set = new Set(excluded);
  return items.filter((item) => !set.has(item));
};
const sorted = (items: Iterable<string>): string[] => [...items].sort();
const stable = ({ durationMs: _durationMs, ...rest }: TelcoLoadReport) => rest;

let folder: string;
let mysqlDatabase: TestDatabase;
let postgresDatabase: PostgresDatabase;
const readonlyName = `tally_ro_${randomBytes(4).toString('hex')}`;
const readonlyPassword = `pw-${randomBytes(8).toString('hex')}`;
const dropped: Array<TestDatabase | PostgresDatabase> = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-telco-'));
  mysqlDatabase = await createTestDatabase('telco_loader');
  dropped.push(mysqlDatabase);
  postgresDatabase = await createPostgresDatabase('telco_loader');
  dropped.push(postgresDatabase);
});

afterAll(() =>
  cleanUp(
    ...dropped.map((database) => () => database.drop()),
    async () => {
      const admin = await adminConnection();
      await admin.query('DROP USER IF EXISTS ?@?, ?@?', [readonlyName, '%', readonlyName, 'localhost']);
      await admin.end();
    },
    async () => {
      // Its databases are gone, and with them every privilege it held: nothing else depends on it.
      const admin = await postgresAdmin();
      await admin.query(`DROP ROLE IF EXISTS ${admin.escapeIdentifier(readonlyName)}`);
      await admin.end();
    },
    () => folder && rm(folder, { recursive: true, force: true }),
  ),
);

const readonlyUser = { readonlyUser: { name: readonlyName, password: readonlyPassword } };
const backends: Array<[string, () => Backend, Partial<LoadTelcoOptions>]> = [
  ['SQLite', () => sqliteBackend(join(folder, 'nested', 'telco.db')), {}],
  ['MariaDB', () => mysqlBackend(mysqlDatabase), readonlyUser],
  // A schema of its own, to show ?schema= is honoured; the CSV suite below uses public.
  ['PostgreSQL', () => postgresBackend(postgresDatabase, 'telco'), readonlyUser],
];

describe.each(backends)('telco_db in %s', (_name, makeBackend, extra) => {
  let backend: Backend;
  let report: TelcoLoadReport;
  let firstChecksums: Record<string, string>;

  beforeAll(async () => {
    backend = makeBackend();
    report = await loadTelco({ url: backend.target, ...extra });
    firstChecksums = await backend.checksums();
  });

  it('holds the eight tables with the row counts the report gives', async () => {
    const { problems } = report;
    expect(report.trainCustomers).toBe(5634);
    expect(report.testCustomers).toBe(1409);
    const expected = {
      user_demographics: 5634 - problems.droppedDemographics.length,
      user_services: 5634 + problems.fakeServiceCustomers.length,
      user_payments: 5634,
      user_churn: 5634 + problems.fakeChurnCustomers.length,
      user_demographics_new: 1409,
      user_services_new: 1409,
      user_payments_new: 1409,
      user_churn_new: 1409,
    };
    expect(report.tableRows).toEqual(expected);
    for (const [table, count] of Object.entries(expected)) {
      const [row] = await backend.all(`SELECT COUNT(*) AS n FROM ${table}`);
      expect(Number(row?.n), table).toBe(count);
    }
  });

  it('lacks demographics for exactly the reported customers', async () => {
    expect(report.problems.droppedDemographics.length).toBeGreaterThan(200);
    const missing = without(await ids(backend, 'user_payments'), await ids(backend, 'user_demographics'));
    expect(missing).toEqual(report.problems.droppedDemographics);
    expect(without(await ids(backend, 'user_demographics'), await ids(backend, 'user_payments'))).toEqual([]);
  });

  it('has the reported fake service rows, with all nine service columns empty', async () => {
    const fakes = without(await ids(backend, 'user_services'), await ids(backend, 'user_payments'));
    expect(fakes).toEqual(report.problems.fakeServiceCustomers);
    const empty = SERVICE_COLUMNS.map((column) => `${column} = ''`).join(' AND ');
    const fakeRows = await backend.all(`SELECT customerID FROM user_services WHERE ${empty} AND tenure IS NULL`);
    expect(sorted(fakeRows.map((row) => String(row.customerID)))).toEqual(fakes);
    const anyEmpty = SERVICE_COLUMNS.map((column) => `${column} = ''`).join(' OR ');
    const damaged = await backend.all(`SELECT customerID FROM user_services WHERE (${anyEmpty}) OR tenure IS NULL`);
    expect(damaged).toHaveLength(fakes.length);
  });

  it("has '' exactly at the reported payment cells (beside the legitimately blank TotalCharges of tenure 0)", async () => {
    const found: string[] = [];
    for (const column of [...BLANKABLE_PAYMENT_COLUMNS, 'MonthlyCharges']) {
      const blank = column === 'MonthlyCharges' ? 'MonthlyCharges IS NULL' : `p.${column} = ''`;
      const legit = column === 'TotalCharges' ? ' AND NOT s.tenure = 0' : '';
      const rows = await backend.all(
        `SELECT p.customerID FROM user_payments p JOIN user_services s ON s.customerID = p.customerID WHERE ${blank}${legit}`,
      );
      found.push(...rows.map((row) => `${row.customerID}:${column}`));
    }
    const reported = report.problems.blankedPaymentCells.map((cell) => `${cell.customerID}:${cell.column}`);
    expect(reported).toHaveLength(100);
    expect(sorted(found)).toEqual(sorted(reported));
  });

  it('has the reported fake churn rows, for customers found in no other table', async () => {
    const fakes = without(await ids(backend, 'user_churn'), await ids(backend, 'user_payments'));
    expect(fakes).toEqual(report.problems.fakeChurnCustomers);
    expect(fakes).toHaveLength(50);
    for (const spec of TELCO_TABLES.filter((table) => table.name !== 'user_churn')) {
      const present = await ids(backend, spec.name);
      expect(
        present.filter((id) => fakes.includes(id)),
        spec.name,
      ).toEqual([]);
    }
  });

  it('keeps the _new tables clean: one id set, no blanks but the TotalCharges of tenure 0', async () => {
    const testIds = await ids(backend, 'user_payments_new');
    expect(testIds).toHaveLength(1409);
    for (const table of ['user_demographics_new', 'user_services_new', 'user_churn_new']) {
      expect(await ids(backend, table), table).toEqual(testIds);
    }
    expect((await ids(backend, 'user_payments')).filter((id) => testIds.includes(id))).toEqual([]);
    for (const spec of TELCO_TABLES.filter((table) => table.part === 'test')) {
      for (const column of spec.columns) {
        const blank =
          column.kind === 'money-text'
            ? `(${column.name} = '' OR ${column.name} IS NULL) AND customerID NOT IN (SELECT customerID FROM user_services_new WHERE tenure = 0)`
            : `${column.name} IS NULL${column.kind === 'category' || column.kind === 'id' ? ` OR ${column.name} = ''` : ''}`;
        const rows = await backend.all(`SELECT customerID FROM ${spec.name} WHERE ${blank}`);
        expect(rows, `${spec.name}.${column.name}`).toEqual([]);
      }
    }
  });

  it('is idempotent: a re-run replaces tampered tables with the same rows', async () => {
    await backend.execute("INSERT INTO user_churn (customerID, Churn) VALUES ('0000-TAMPR', 'Yes')");
    await backend.execute("UPDATE user_payments_new SET Contract = 'Tampered'");
    expect(await backend.checksums()).not.toEqual(firstChecksums);
    const again = await loadTelco({ url: backend.target, ...extra });
    expect(stable(again)).toEqual(stable(report));
    expect(await backend.checksums()).toEqual(firstChecksums);
  });

  it('never reports a password', () => {
    expect(JSON.stringify(report)).not.toContain(readonlyPassword);
    expect(formatTelcoReport(report)).not.toContain(readonlyPassword);
  });
});

describe('the read-only MariaDB account for tally', () => {
  const connect = (password = readonlyPassword) => {
    const admin = new URL(mysqlDatabase.url);
    return mysql.createConnection({
      host: admin.hostname,
      port: Number(admin.port || 3306),
      user: readonlyName,
      password,
      database: mysqlDatabase.name,
    });
  };

  it('can SELECT and cannot INSERT, UPDATE, DELETE, DROP or CREATE', async () => {
    // The loader ran in the MariaDB suite above; make sure of it when this block runs alone.
    await loadTelco({
      target: mysqlDatabase.url,
      readonlyUser: { name: readonlyName, password: readonlyPassword },
    });
    const connection = await connect();
    try {
      const [rows] = await connection.query('SELECT COUNT(*) AS n FROM user_churn_new');
      expect(Number((rows as Row[])[0]?.n)).toBe(1409);
      const denied: Array<[string, string]> = [
        ["INSERT INTO user_churn (customerID, Churn) VALUES ('0000-AAAAA', 'No')", 'ER_TABLEACCESS_DENIED_ERROR'],
        ["UPDATE user_churn SET Churn = 'No'", 'ER_TABLEACCESS_DENIED_ERROR'],
        ['DELETE FROM user_churn', 'ER_TABLEACCESS_DENIED_ERROR'],
        ['DROP TABLE user_churn', 'ER_TABLEACCESS_DENIED_ERROR'],
        ['CREATE TABLE extra (id INT)', 'ER_TABLEACCESS_DENIED_ERROR'],
        ['CREATE DATABASE tally_ro_should_not_exist', 'ER_DBACCESS_DENIED_ERROR'],
        ['SELECT COUNT(*) FROM mysql.user', 'ER_TABLEACCESS_DENIED_ERROR'],
      ];
      for (const [sql, code] of denied) {
        await expect(connection.query(sql), sql).rejects.toMatchObject({ code });
      }
      const [after] = await connection.query('SELECT COUNT(*) AS n FROM user_churn');
      expect(Number((after as Row[])[0]?.n)).toBe(5684);
    } finally {
      await connection.end();
    }
    const admin = await adminConnection();
    try {
      for (const host of ['%', 'localhost']) {
        const [grants] = await admin.query('SHOW GRANTS FOR ?@?', [readonlyName, host]);
        const lines = (grants as Row[]).map((row) => String(Object.values(row)[0]));
        expect(lines.filter((line) => !line.startsWith('GRANT USAGE ON *.*'))).toEqual([
          `GRANT SELECT ON \`${mysqlDatabase.name}\`.* TO \`${readonlyName}\`@\`${host}\``,
        ]);
      }
    } finally {
      await admin.end();
    }
  });

  it('resets the password and strips extra grants on a re-run', async () => {
    const admin = await adminConnection();
    await admin.query(`GRANT INSERT, DELETE ON \`${mysqlDatabase.name}\`.* TO ?@?`, [readonlyName, '%']);
    await admin.end();
    await createReadonlyUser(mysqlDatabase.url, { name: readonlyName, password: `${readonlyPassword}-2` });
    await expect(connect()).rejects.toMatchObject({ code: 'ER_ACCESS_DENIED_ERROR' });
    const connection = await connect(`${readonlyPassword}-2`);
    try {
      await expect(connection.query('DELETE FROM user_churn')).rejects.toMatchObject({
        code: 'ER_TABLEACCESS_DENIED_ERROR',
      });
    } finally {
      await connection.end();
    }
  });
});

/** IBM-format rows as in WA_Fn-UseC_-Telco-Customer-Churn.csv: CRLF, some quoting, ' ' for tenure 0. */
const IBM_CSV = [
  TELCO_COLUMNS.map((column) => column.name).join(','),
  '7590-VHVEG,Female,0,Yes,No,1,No,No phone service,DSL,No,Yes,No,No,No,No,Month-to-month,Yes,Electronic check,29.85,29.85,No',
  '5575-GNVDE,Male,0,No,No,34,Yes,No,DSL,Yes,No,Yes,No,No,No,One year,No,Mailed check,56.95,1889.5,No',
  '3668-QPYBK,Male,0,No,No,2,Yes,No,DSL,Yes,Yes,No,No,No,No,Month-to-month,Yes,Mailed check,53.85,108.15,Yes',
  '7795-CFOCW,Male,0,No,No,45,No,No phone service,DSL,Yes,No,Yes,Yes,No,No,One year,No,"Bank transfer (automatic)",42.3,1840.75,No',
  '9237-HQITU,Female,0,No,No,2,Yes,No,Fiber optic,No,No,No,No,No,No,Month-to-month,Yes,Electronic check,70.7,151.65,Yes',
  '9305-CDSKC,Female,0,No,No,8,Yes,Yes,Fiber optic,No,No,Yes,No,Yes,Yes,Month-to-month,Yes,Electronic check,99.65,820.5,Yes',
  '1452-KIOVK,Male,0,No,Yes,22,Yes,Yes,Fiber optic,No,Yes,No,No,Yes,No,Month-to-month,Yes,"Credit card (automatic)",89.1,1949.4,No',
  '6713-OKOMC,Female,0,No,No,10,No,No phone service,DSL,Yes,No,No,No,No,No,Month-to-month,No,Mailed check,29.75,301.9,No',
  '7892-POOKP,Female,0,Yes,No,28,Yes,Yes,Fiber optic,No,No,Yes,Yes,Yes,Yes,Month-to-month,Yes,Electronic check,104.8,3046.05,Yes',
  '6388-TABGU,Male,0,No,Yes,62,Yes,No,DSL,Yes,Yes,No,No,No,No,One year,No,Bank transfer (automatic),56.15,3487.95,No',
  '4472-LVYGI,Female,0,Yes,Yes,0,No,No phone service,DSL,Yes,No,Yes,Yes,Yes,No,Two year,Yes,Bank transfer (automatic),52.55," ",No',
  '7469-LKBCI,Male,1,No,No,16,Yes,No,No,No internet service,No internet service,No internet service,No internet service,No internet service,No internet service,Two year,No,Credit card (automatic),18.95,326.8,No',
  '',
].join('\r\n');

const csvBackends: Array<[string, () => Promise<Backend>]> = [
  ['SQLite', async () => sqliteBackend(join(folder, 'from-csv.db'))],
  [
    'MariaDB',
    async () => {
      const database = await createTestDatabase('telco_csv');
      dropped.push(database);
      return mysqlBackend(database);
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const database = await createPostgresDatabase('telco_csv');
      dropped.push(database);
      return postgresBackend(database);
    },
  ],
];

describe.each(csvBackends)('telco_db from the IBM CSV in %s', (_name, makeBackend) => {
  it('loads every customer of the file with its values intact', async () => {
    const csvPath = join(folder, 'ibm-sample.csv');
    await writeFile(csvPath, IBM_CSV);
    const backend = await makeBackend();
    const report = await loadTelco({ target: backend.target, csvPath });
    expect(report.source).toEqual({ kind: 'csv', path: csvPath, rows: 12 });
    expect([report.trainCustomers, report.testCustomers]).toEqual([10, 2]);

    const customers = parseTelcoCsv(IBM_CSV);
    const joined = (suffix: string) =>
      backend.all(
        `SELECT d.*, s.*, p.*, c.* FROM user_payments${suffix} p
         JOIN user_services${suffix} s ON s.customerID = p.customerID
         JOIN user_demographics${suffix} d ON d.customerID = p.customerID
         JOIN user_churn${suffix} c ON c.customerID = p.customerID`,
      );
    const damaged = new Set(report.problems.blankedPaymentCells.map((cell) => cell.customerID));
    const stored = [...(await joined('')), ...(await joined('_new'))].filter(
      (row) => !damaged.has(String(row.customerID)),
    );
    expect(stored.length).toBeGreaterThanOrEqual(12 - report.problems.droppedDemographics.length - damaged.size);
    for (const row of stored) {
      const original = customers.find((customer) => customer.customerID === row.customerID);
      const normalised = Object.fromEntries(
        TELCO_COLUMNS.map(({ name: column, kind }) => [
          column,
          kind === 'money' || kind === 'flag' || kind === 'integer' ? Number(row[column]) : row[column],
        ]),
      );
      expect(normalised).toEqual(original);
    }
    const all = sorted([...(await ids(backend, 'user_payments')), ...(await ids(backend, 'user_payments_new'))]);
    expect(all).toEqual(sorted(customers.map((customer) => customer.customerID)));
  });
});

describe('telco_db in every backend', () => {
  const money = new Set<string>(TELCO_COLUMNS.filter((column) => column.kind === 'money').map((column) => column.name));
  /** Each table's rows as plain values: drivers hand a DECIMAL back as text, SQLite's REAL as a number. */
  const contents = async (backend: Backend) => {
    const tables: Record<string, Row[]> = {};
    for (const { name } of TELCO_TABLES) {
      const rows = await backend.all(`SELECT * FROM ${name} ORDER BY customerID`);
      tables[name] = rows.map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([column, value]) => [
            column,
            money.has(column) && value !== null ? Number(value) : value,
          ]),
        ),
      );
    }
    return tables;
  };

  it('holds the same columns and values in SQLite, MariaDB and PostgreSQL', async () => {
    const mariadb = await createTestDatabase('telco_same');
    dropped.push(mariadb);
    const postgres = await createPostgresDatabase('telco_same');
    dropped.push(postgres);
    const loaded = [sqliteBackend(join(folder, 'same.db')), mysqlBackend(mariadb), postgresBackend(postgres)];
    for (const backend of loaded) await loadTelco({ url: backend.target, rows: 700, seed: 9 });
    const [fromSqlite, fromMysql, fromPostgres] = await Promise.all(loaded.map(contents));
    expect(Object.keys(fromSqlite?.user_payments?.[0] ?? {})).toEqual(
      TELCO_TABLES.find((spec) => spec.name === 'user_payments')?.columns.map((column) => column.name),
    );
    expect(fromSqlite?.user_services?.length).toBeGreaterThan(500);
    expect(fromMysql).toEqual(fromSqlite);
    expect(fromPostgres).toEqual(fromSqlite);

    // Equal values could still come from different types; the kind decides the pandas dtype of an extraction.
    const connection = await adminConnection();
    const [mysqlColumns] = await connection.query(
      'SELECT TABLE_NAME AS t, COLUMN_NAME AS c, DATA_TYPE AS type, COLUMN_TYPE AS full FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ?',
      [mariadb.name],
    );
    await connection.end();
    const client = await postgresAdmin(postgres.name);
    const { rows: postgresColumns } = await client.query(
      "SELECT table_name AS t, column_name AS c, udt_name AS type FROM information_schema.columns WHERE table_schema = 'public'",
    );
    await client.end();
    const kinds = (columns: Row[], kind: (column: Row) => string) =>
      Object.fromEntries(columns.map((column) => [`${column.t}.${column.c}`, kind(column)]).sort());
    // PostgreSQL holds the names in lower case (telco_data/README.md): compared as the server folds them.
    const folded = (columns: Row[]) => columns.map((column) => ({ ...column, c: String(column.c).toLowerCase() }));
    const mysqlKinds = kinds(
      folded(mysqlColumns as Row[]),
      (column) => mysqlTypeNameEncoding(String(column.type), String(column.full)).kind,
    );
    expect(Object.keys(mysqlKinds)).toHaveLength(TELCO_TABLES.flatMap((spec) => spec.columns).length);
    expect(kinds(postgresColumns, (column) => postgresTypeNameEncoding(String(column.type)).kind)).toEqual(mysqlKinds);
  });
});
