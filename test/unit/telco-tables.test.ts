import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTelcoTables, type TelcoTables } from '../../telco_data/build-telco-tables.js';
import { formatTelcoReport } from '../../telco_data/format-report.js';
import { generateCustomers } from '../../telco_data/generate-customers.js';
import type { TelcoLoadReport } from '../../telco_data/load-telco.js';
import { parseLoadArguments } from '../../telco_data/parse-load-arguments.js';
import { SERVICE_COLUMNS, TELCO_COLUMNS } from '../../telco_data/telco-customer.js';
import { TelcoError } from '../../telco_data/telco-error.js';
import type { TelcoRow } from '../../telco_data/telco-tables.js';
import { MYSQL_TYPES, TELCO_TABLES, type TelcoTableName } from '../../telco_data/telco-tables.js';
import { parseTelcoTarget, redactUrl } from '../../telco_data/telco-target.js';

const customers = generateCustomers({ seed: 42 });
const built = buildTelcoTables(customers, { seed: 42 });

function rows(tables: TelcoTables, name: TelcoTableName): TelcoRow[] {
  return tables.tables.find((table) => table.spec.name === name)?.rows ?? [];
}
const ids = (tables: TelcoTables, name: TelcoTableName): Set<string> =>
  new Set(rows(tables, name).map((row) => String(row.customerID)));

describe('buildTelcoTables', () => {
  it('splits 80/20, deterministically per seed', () => {
    expect(built.trainCustomers).toBe(5634);
    expect(built.testCustomers).toBe(1409);
    expect(buildTelcoTables(customers, { seed: 42 })).toEqual(built);
    expect(ids(buildTelcoTables(customers, { seed: 43 }), 'user_payments')).not.toEqual(ids(built, 'user_payments'));
    const train = ids(built, 'user_payments');
    const test = ids(built, 'user_payments_new');
    expect([...train].filter((id) => test.has(id))).toEqual([]);
    expect(train.size + test.size).toBe(customers.length);
  });

  it('injects the reported damage into the train tables only', () => {
    const { problems } = built;
    expect(problems.droppedDemographics).toHaveLength(282);
    expect(problems.fakeServiceCustomers).toHaveLength(100);
    expect(problems.blankedPaymentCells).toHaveLength(100);
    expect(problems.fakeChurnCustomers).toHaveLength(50);
    const real = new Set(customers.map((customer) => customer.customerID));
    const train = ids(built, 'user_payments');
    expect(problems.droppedDemographics.every((id) => train.has(id))).toBe(true);
    expect([...ids(built, 'user_demographics')].sort()).toEqual(
      [...train].filter((id) => !problems.droppedDemographics.includes(id)).sort(),
    );
    const fakes = [...problems.fakeServiceCustomers, ...problems.fakeChurnCustomers];
    expect(new Set(fakes).size).toBe(150);
    expect(fakes.filter((id) => real.has(id))).toEqual([]);
    for (const row of rows(built, 'user_services').filter((row) => !train.has(String(row.customerID)))) {
      expect(SERVICE_COLUMNS.map((column) => row[column])).toEqual(SERVICE_COLUMNS.map(() => ''));
      expect(row.tenure).toBeNull();
    }
    const byId = new Map(customers.map((customer) => [customer.customerID, customer]));
    for (const cell of problems.blankedPaymentCells) {
      expect(byId.get(cell.customerID)?.[cell.column]).not.toBe('');
      expect(rows(built, 'user_payments').find((row) => row.customerID === cell.customerID)?.[cell.column]).toBe('');
    }
    const test = ['user_demographics_new', 'user_services_new', 'user_payments_new', 'user_churn_new'] as const;
    for (const name of test) expect(ids(built, name)).toEqual(ids(built, 'user_payments_new'));
  });

  it('scales the damage with the data, at least one problem of each kind, and can leave it out', () => {
    const small = buildTelcoTables(generateCustomers({ rows: 50, seed: 1 }), { seed: 1 });
    expect(small.trainCustomers).toBe(40);
    expect(small.problems.droppedDemographics).toHaveLength(2);
    expect(small.problems.fakeServiceCustomers).toHaveLength(1);
    expect(small.problems.blankedPaymentCells).toHaveLength(1);
    expect(small.problems.fakeChurnCustomers).toHaveLength(1);
    const clean = buildTelcoTables(customers, { seed: 42, damage: false });
    expect(Object.values(clean.problems).flat()).toEqual([]);
    expect(rows(clean, 'user_demographics')).toHaveLength(5634);
  });
});

describe('the loader command line', () => {
  const error = (run: () => unknown): TelcoError => {
    try {
      run();
    } catch (caught) {
      if (caught instanceof TelcoError) return caught;
      throw caught;
    }
    throw new Error('expected a TelcoError');
  };

  it('turns flags into loader options', () => {
    expect(parseLoadArguments(['--target', 'sqlite:x.db'])).toEqual({ target: 'sqlite:x.db' });
    expect(
      parseLoadArguments([
        '--target=mysql://root@db:3306/telco_db',
        '--seed',
        '7',
        '--rows',
        '100',
        '--readonly-user',
        'tally_ro',
        '--readonly-password',
        'pw',
      ]),
    ).toEqual({
      target: 'mysql://root@db:3306/telco_db',
      seed: 7,
      rows: 100,
      readonlyUser: { name: 'tally_ro', password: 'pw' },
    });
    expect(parseLoadArguments(['--help'])).toBe('help');
  });

  it('takes the location from --url or from --target, its older name, keeping which one it was', () => {
    expect(parseLoadArguments(['--url', 'postgres://u@db/telco_db'])).toEqual({ url: 'postgres://u@db/telco_db' });
    expect(parseLoadArguments(['--url=sqlite:x.db', '--seed', '3'])).toEqual({ url: 'sqlite:x.db', seed: 3 });
    expect(parseLoadArguments(['--target', 'sqlite:x.db'])).toEqual({ target: 'sqlite:x.db' });
    const both = error(() => parseLoadArguments(['--url', 'sqlite:a.db', '--target', 'sqlite:b.db']));
    expect(both.code).toBe('TELCO_ARGUMENT_INVALID');
    expect(both.message).toBe('--url: give --url or --target (its older name), not both');
  });

  it('names the flag to fix in one line', () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /^--url: is required \(sqlite:<path>, mysql:\/\/\.\.\. or postgres:\/\/\.\.\.\)/],
      [['--target', 'sqlite:x', '--rows', 'many'], /^--rows: expected a whole number/],
      [['--target', 'sqlite:x', '--seed', '-1'], /--seed/],
      [['--target', 'sqlite:x', '--bogus'], /--bogus/],
      [['--target', 'sqlite:x', '--readonly-user', 'ro'], /^--readonly-password: is required/],
      [['--target', 'sqlite:x', '--readonly-password', 'pw'], /^--readonly-user: is required/],
    ];
    for (const [argv, pattern] of cases) {
      const caught = error(() => parseLoadArguments(argv));
      expect(caught.code).toBe('TELCO_ARGUMENT_INVALID');
      expect(caught.message).toMatch(pattern);
      expect(caught.message).not.toContain('\n');
    }
  });

  it('parses and redacts targets', () => {
    expect(parseTelcoTarget('sqlite:.tally/telco.db', '/srv')).toEqual({
      kind: 'sqlite',
      path: '/srv/.tally/telco.db',
    });
    expect(parseTelcoTarget('sqlite:///abs/telco.db', '/srv')).toEqual({ kind: 'sqlite', path: '/abs/telco.db' });
    expect(parseTelcoTarget('mysql://admin:p%40ss@db.internal:3307/sales')).toEqual({
      kind: 'mysql',
      host: 'db.internal',
      port: 3307,
      user: 'admin',
      password: 'p@ss',
      database: 'sales',
      redacted: 'mysql://admin:***@db.internal:3307/sales',
    });
    expect(parseTelcoTarget('mariadb://root@127.0.0.1')).toMatchObject({ database: 'telco_db', port: 3306 });
    expect(error(() => parseTelcoTarget('oracle://x/y')).message).toMatch(/^--target: 'oracle:\/\/x\/y' is none of/);
    expect(error(() => parseTelcoTarget('oracle://x/y', '/', '--url')).message).toMatch(/^--url: /);
    expect(error(() => parseTelcoTarget('mysql://root@h/bad-name')).message).toMatch(/^--target: database name/);
    expect(error(() => parseTelcoTarget('sqlite:')).message).toMatch(/^--target: /);
    expect(redactUrl('mysql://u:secret@h/db')).toBe('mysql://u:***@h/db');
  });

  it('parses PostgreSQL URLs: schema from ?schema=, the rest of the query kept for the driver', () => {
    expect(parseTelcoTarget('postgres://admin:p%40ss@db.internal:5433/sales?schema=telco&sslmode=require')).toEqual({
      kind: 'postgres',
      host: 'db.internal',
      port: 5433,
      user: 'admin',
      password: 'p@ss',
      database: 'sales',
      schema: 'telco',
      url: 'postgres://admin:p%40ss@db.internal:5433/sales?sslmode=require',
      redacted: 'postgres://admin:***@db.internal:5433/sales?schema=telco&sslmode=require',
    });
    expect(parseTelcoTarget('postgresql://127.0.0.1')).toMatchObject({
      kind: 'postgres',
      user: 'postgres',
      port: 5432,
      database: 'telco_db',
      schema: 'public',
      url: 'postgresql://postgres@127.0.0.1/telco_db',
    });
    for (const schema of ['pg_catalog', 'has-dash', '1st']) {
      expect(error(() => parseTelcoTarget(`postgres://h/db?schema=${schema}`, '/', '--url')).message).toMatch(
        /^--url: schema name/,
      );
    }
    expect(error(() => parseTelcoTarget('postgres://h/bad-name')).message).toMatch(/^--target: database name/);
  });

  it('prints a report listing every injected problem with its customerIDs', () => {
    const report: TelcoLoadReport = {
      target: 'sqlite:/tmp/telco.db',
      kind: 'sqlite',
      database: '/tmp/telco.db',
      source: { kind: 'generator', seed: 42, rows: 7043 },
      seed: 42,
      trainCustomers: built.trainCustomers,
      testCustomers: built.testCustomers,
      tableRows: Object.fromEntries(built.tables.map((table) => [table.spec.name, table.rows.length])),
      problems: built.problems,
      durationMs: 12,
    };
    const text = formatTelcoReport(report);
    expect(text).toMatch(/user_demographics\s+5352 {2}\(train, damaged\)/);
    expect(text).toMatch(/user_churn_new\s+1409 {2}\(test, clean\)/);
    expect(text).toContain("user_demographics: 282 customers' rows deleted");
    for (const id of [...built.problems.droppedDemographics, ...built.problems.fakeChurnCustomers]) {
      expect(text).toContain(id);
    }
    const cell = built.problems.blankedPaymentCells[0];
    expect(text).toContain(`${cell?.customerID}:${cell?.column}`);
    expect(Math.max(...text.split('\n').map((line) => line.length))).toBeLessThanOrEqual(120);
  });

  it('names the server and the read-only role of a PostgreSQL load', () => {
    const report: TelcoLoadReport = {
      target: 'postgres://postgres:***@db:5432/telco_db?schema=telco',
      kind: 'postgres',
      database: 'telco_db',
      schema: 'telco',
      source: { kind: 'generator', seed: 42, rows: 7043 },
      seed: 42,
      trainCustomers: built.trainCustomers,
      testCustomers: built.testCustomers,
      tableRows: {},
      problems: built.problems,
      readonlyUser: { name: 'tally_ro', database: 'telco_db', schema: 'telco' },
      durationMs: 12,
    };
    const text = formatTelcoReport(report);
    expect(text).toContain(
      'telco_db loaded into PostgreSQL postgres://postgres:***@db:5432/telco_db?schema=telco in 12 ms',
    );
    expect(text).toContain(
      "read-only role: 'tally_ro' with CONNECT on telco_db, USAGE on schema telco and SELECT on its tables only",
    );
  });
});

describe('the data dictionary', () => {
  const dictionary = readFileSync(join(import.meta.dirname, '..', '..', 'telco_data', 'data-dictionary.md'), 'utf8');
  const sections = dictionary.split(/^## /m);

  it('describes every table and column with its type and allowed values', () => {
    for (const spec of TELCO_TABLES) {
      const section = sections.find((text) => text.split('\n')[0]?.split(', ').includes(spec.name));
      expect(section, spec.name).toBeDefined();
      for (const column of spec.columns) {
        const line = section?.split('\n').find((text) => text.startsWith(`| \`${column.name}\` |`));
        expect(line, `${spec.name}.${column.name}`).toContain(MYSQL_TYPES[column.kind]);
        for (const value of TELCO_COLUMNS.find((candidate) => candidate.name === column.name)?.values ?? []) {
          expect(line, `${spec.name}.${column.name}`).toContain(`\`${value}\``);
        }
      }
    }
  });

  it('describes each kind of injected damage', () => {
    const problems = sections.find((text) => text.startsWith('Known data quality problems in the train tables'));
    expect(problems).toBeDefined();
    for (const words of ['user_demographics', 'user_services', "set to `''`", 'user_churn', 'tenure` is NULL']) {
      expect(problems).toContain(words);
    }
  });
});
