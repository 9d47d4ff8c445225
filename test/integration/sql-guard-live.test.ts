/**
 * Every hostile statement of the guard's table, sent to real databases through the connectors (as an
 * admin account, the worst case): each is rejected, and afterwards every table's checksum, the list of
 * tables and the file system are as before.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlRejectedError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { MysqlDatabase } from '../../src/db/mysql/mysql-database.js';
import { SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import type { Database } from '../../src/ports/database.js';
import { LIMITS, type SampleDatabase, sampleMysql, sampleSqlite } from '../support/sample-databases.js';
import { REJECTED } from '../support/sql-cases.js';

const implementations = [
  {
    dialect: 'mysql' as const,
    sample: sampleMysql,
    open: (location: string) =>
      MysqlDatabase.connect({ name: 'shop', url: location, limits: LIMITS, logger: createLogger({ level: 'silent' }) }),
    extraTables: ['CREATE TABLE t (id INT, a INT)', 'CREATE TABLE u (id INT)', 'INSERT INTO t VALUES (1, 1), (2, 2)'],
    fingerprint: async (fixture: SampleDatabase) => {
      const tables = (await fixture.admin('SHOW TABLES')) as Array<Record<string, string>>;
      const names = tables.map((row) => Object.values(row)[0] ?? '').sort();
      return JSON.stringify({ names, sums: await fixture.admin(`CHECKSUM TABLE ${names.join(', ')}`) });
    },
  },
  {
    dialect: 'sqlite' as const,
    sample: sampleSqlite,
    open: (location: string) => SqliteDatabase.open({ name: 'shop', path: location, limits: LIMITS }),
    extraTables: ['CREATE TABLE t (id INT, a INT)', 'CREATE TABLE u (id INT)', 'INSERT INTO t VALUES (1, 1), (2, 2)'],
    fingerprint: async (fixture: SampleDatabase) => {
      const master = await fixture.admin('SELECT type, name, sql FROM sqlite_master ORDER BY name');
      const rows = [];
      for (const entry of master as Array<{ type: string; name: string }>) {
        if (entry.type === 'table') rows.push(await fixture.admin(`SELECT * FROM "${entry.name}" ORDER BY rowid`));
      }
      return JSON.stringify({ master, rows });
    },
  },
];

describe.each(implementations)(
  'hostile SQL against a real $dialect database',
  ({ dialect, sample, open, extraTables, fingerprint }) => {
    let fixture: SampleDatabase;
    let database: Database;
    const cases = REJECTED.filter(([caseDialect]) => caseDialect === dialect);

    beforeAll(async () => {
      fixture = await sample();
      for (const sql of extraTables) await fixture.admin(sql);
      database = await open(fixture.location);
    });
    afterAll(async () => {
      await database?.close();
      await fixture?.drop();
    });

    it(`rejects all ${cases.length} statements and leaves every table as it was`, async () => {
      expect(cases.length).toBeGreaterThanOrEqual(dialect === 'mysql' ? 40 : 15);
      const before = await fingerprint(fixture);
      for (const [, sql] of cases) {
        await expect(database.query(sql), sql).rejects.toBeInstanceOf(SqlRejectedError);
      }
      expect(await fingerprint(fixture)).toBe(before);
      expect(existsSync('/tmp/x')).toBe(false);
    });
  },
);
