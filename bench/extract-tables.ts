/**
 * The extraction bench's data, made once and kept: in MariaDB's `tally_bench`, ten columns of every
 * common kind at 1M and 10M rows and a 100-column table; and the 1M-row table again in a SQLite file.
 * MariaDB tables come from its sequence engine; each is checked by its row count and rebuilt if short.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { adminConnection, mysqlAdminUrl } from './mysql-admin.js';

export const DATABASE = 'tally_bench';
export const ROWS = 1_000_000;
export const BIG_ROWS = 10_000_000;
export const WIDE_ROWS = 100_000;
export const WIDE_COLUMNS = 100;

/** The ten columns: ints, a bigint, a decimal, a decimal, low- and high-cardinality text, a date, a datetime, a 0/1 int, a nullable int. */
const TEN_COLUMNS = `CAST(seq AS SIGNED) AS id, seq * 7919 AS big, seq / 3 AS ratio,
  CAST(seq % 100000 / 100 AS DECIMAL(10,2)) AS price, CONCAT('segment-', seq % 12) AS segment,
  CONCAT('customer ', seq) AS name, DATE_ADD(DATE '2015-01-01', INTERVAL seq % 3650 DAY) AS day,
  TIMESTAMP('2020-01-01 00:00:00') + INTERVAL seq SECOND AS moment, CAST(seq % 2 AS SIGNED) AS flag,
  IF(seq % 9 = 0, NULL, seq % 1000) AS maybe`;

/** Ten groups of ten: an int, a double, a decimal, short text, a date, a nullable int, ... */
function wideColumns(): string {
  const kinds = [
    (n: number) => `CAST(seq + ${n} AS SIGNED) AS i${n}`,
    (n: number) => `CAST(seq * 1.25 + ${n} AS DOUBLE) AS f${n}`,
    (n: number) => `CAST((seq + ${n}) % 100000 / 100 AS DECIMAL(10,2)) AS d${n}`,
    (n: number) => `CONCAT('k', (seq + ${n}) % 50) AS s${n}`,
    (n: number) => `DATE_ADD(DATE '2015-01-01', INTERVAL (seq + ${n}) % 3650 DAY) AS t${n}`,
    (n: number) => `IF((seq + ${n}) % 7 = 0, NULL, seq % 1000) AS m${n}`,
    (n: number) => `CAST((seq + ${n}) % 2 AS SIGNED) AS b${n}`,
    (n: number) => `CONCAT('user ', seq + ${n}) AS u${n}`,
    (n: number) => `seq * ${n + 3} AS g${n}`,
    (n: number) => `TIMESTAMP('2020-01-01 00:00:00') + INTERVAL (seq + ${n}) SECOND AS w${n}`,
  ];
  return Array.from({ length: WIDE_COLUMNS }, (_, n) => kinds[n % kinds.length]?.(n)).join(',\n  ');
}

export const TABLES = {
  rows: { name: 'bench_rows', rows: ROWS, select: TEN_COLUMNS },
  big: { name: 'bench_rows_10m', rows: BIG_ROWS, select: TEN_COLUMNS },
  wide: { name: 'bench_wide', rows: WIDE_ROWS, select: wideColumns() },
} as const;

/** Creates what is missing of `tables` (all by default); returns the URL of `tally_bench` for the admin account. */
export async function ensureTables(
  say: (message: string) => void,
  tables: ReadonlyArray<(typeof TABLES)[keyof typeof TABLES]> = Object.values(TABLES),
): Promise<string> {
  const admin = await adminConnection();
  await admin.query(`CREATE DATABASE IF NOT EXISTS ${DATABASE}`);
  await admin.query(`USE ${DATABASE}`);
  for (const table of tables) {
    const [found] = await admin.query(
      'SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
      [DATABASE, table.name],
    );
    if ((found as unknown[]).length > 0) {
      const [[count]] = (await admin.query(`SELECT COUNT(*) AS n FROM ${table.name}`)) as unknown as [[{ n: number }]];
      if (Number(count.n) === table.rows) continue;
      await admin.query(`DROP TABLE ${table.name}`);
    }
    say(`creating ${DATABASE}.${table.name} (${table.rows.toLocaleString('en')} rows)`);
    await admin.query(`CREATE TABLE ${table.name} AS SELECT ${table.select} FROM seq_1_to_${table.rows}`);
  }
  await admin.end();
  const url = new URL(mysqlAdminUrl());
  url.pathname = `/${DATABASE}`;
  return url.toString();
}

/** The 1M-row table as a SQLite file under `folder` (declared types as a SQLite user would write them). */
export function ensureSqliteFile(folder: string, say: (message: string) => void): string {
  const path = join(folder, 'bench_rows.db');
  if (existsSync(path)) return path;
  say(`creating ${path} (${ROWS.toLocaleString('en')} rows)`);
  mkdirSync(folder, { recursive: true });
  const building = `${path}.building`;
  rmSync(building, { force: true });
  const file = new BetterSqlite(building);
  file.pragma('journal_mode = OFF');
  file.exec(`CREATE TABLE bench_rows (id INTEGER, big INTEGER, ratio REAL, price NUMERIC, segment TEXT, name TEXT,
    day DATE, moment DATETIME, flag INTEGER, maybe INTEGER)`);
  const insert = file.prepare('INSERT INTO bench_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const pad = (value: number) => String(value).padStart(2, '0');
  const day = (seq: number) => new Date(Date.UTC(2015, 0, 1) + (seq % 3650) * 86_400_000).toISOString().slice(0, 10);
  const moment = (seq: number) => {
    const at = new Date(Date.UTC(2020, 0, 1) + seq * 1000);
    return `${at.toISOString().slice(0, 10)} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}`;
  };
  file.transaction(() => {
    for (let seq = 1; seq <= ROWS; seq++) {
      insert.run(
        seq,
        seq * 7919,
        Math.round((seq / 3) * 10_000) / 10_000,
        (seq % 100_000) / 100,
        `segment-${seq % 12}`,
        `customer ${seq}`,
        day(seq),
        moment(seq),
        seq % 2,
        seq % 9 === 0 ? null : seq % 1000,
      );
    }
  })();
  file.close();
  renameSync(building, path);
  return path;
}
