/**
 * Writes the telco_db tables into an embedded SQLite file: the zero-setup database of the demo.
 * The whole load is one transaction, so a reader never sees half a dataset, and re-running replaces
 * the eight tables. SQLite has no column comments, so each column's meaning is written as an SQL
 * comment inside CREATE TABLE, which SQLite keeps verbatim in sqlite_master for describeTable.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { TelcoRowCounts, TelcoTableData } from './build-telco-tables.js';
import { TelcoError } from './telco-error.js';
import { SQLITE_TYPES, type TelcoTableSpec } from './telco-tables.js';

const quote = (identifier: string): string => `"${identifier}"`;

/** CREATE TABLE for SQLite, with the comments inside. */
export function sqliteCreateTable(spec: TelcoTableSpec): string {
  const lines = spec.columns.map((column, index) => {
    const key = column.kind === 'id' ? ' PRIMARY KEY' : '';
    const separator = index < spec.columns.length - 1 ? ',' : '';
    const type = `${SQLITE_TYPES[column.kind]}${column.nullable ? '' : ' NOT NULL'}${key}`;
    return `  ${quote(column.name)} ${type}${separator} -- ${column.comment}`;
  });
  return `CREATE TABLE ${quote(spec.name)} ( -- ${spec.comment}\n${lines.join('\n')}\n)`;
}

/**
 * Creates (or replaces) the tables in the SQLite file at `path`, creating parent folders, and
 * returns the row count of each table as the database reports it. `urlFlag` is the option that gave
 * the path, for error messages: `--url` or `--target`.
 */
export function loadIntoSqlite(path: string, tables: readonly TelcoTableData[], urlFlag = '--target'): TelcoRowCounts {
  let database: Database.Database;
  try {
    mkdirSync(dirname(path), { recursive: true });
    database = new Database(path);
  } catch (error) {
    throw new TelcoError('TELCO_DATABASE_REFUSED', `${urlFlag}: cannot open SQLite file ${path} (${String(error)})`, {
      details: { path },
      cause: error,
    });
  }
  try {
    // Rollback journal, not WAL: the file stays self-contained and read-only openers need no -shm file.
    database.pragma('journal_mode = DELETE');
    database.transaction(() => {
      for (const { spec, rows } of tables) {
        database.exec(`DROP TABLE IF EXISTS ${quote(spec.name)}`);
        database.exec(sqliteCreateTable(spec));
        const names = spec.columns.map((column) => column.name);
        const insert = database.prepare(
          `INSERT INTO ${quote(spec.name)} (${names.map(quote).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
        );
        for (const row of rows) insert.run(names.map((name) => row[name] ?? null));
      }
    })();
    // Reclaims the pages of the dropped tables, so re-running does not grow the file.
    database.exec('VACUUM');
    const counts: TelcoRowCounts = {};
    for (const { spec } of tables) {
      const result = database.prepare(`SELECT COUNT(*) AS n FROM ${quote(spec.name)}`).get() as { n: number };
      counts[spec.name] = result.n;
    }
    return counts;
  } finally {
    database.close();
  }
}
