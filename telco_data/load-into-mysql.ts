/**
 * Writes the telco_db tables into MySQL/MariaDB, with table and column comments from the data
 * dictionary so `describeTable` can show them to analysts and the model. Re-running drops and
 * recreates the eight tables; DDL commits implicitly in MySQL, so the transaction covers the rows.
 */
import type mysql from 'mysql2/promise';
import type { TelcoRowCounts, TelcoTableData } from './build-telco-tables.js';
import { connectMysql, type MysqlTarget, mysqlError, quoteMysql } from './mysql-connection.js';
import { MYSQL_TYPES, type TelcoTableSpec } from './telco-tables.js';
import { parseTelcoTarget } from './telco-target.js';

export interface LoadIntoMysqlOptions {
  /** Rows per multi-row INSERT. Default 1000 (well under max_allowed_packet at ~200 bytes a row). */
  batchRows?: number;
  /** The option that gave the URL, for error messages: `--url` or `--target` (default). */
  urlFlag?: string;
}

/** COMMENT '...' text: MySQL caps column comments at 1024 characters and table comments at 2048. */
const comment = (text: string, max: number): string => `'${text.slice(0, max).replaceAll("'", "''")}'`;

/** CREATE TABLE for MySQL/MariaDB, with comments. */
export function mysqlCreateTable(spec: TelcoTableSpec): string {
  const columns = spec.columns.map((column) => {
    const key = column.kind === 'id' ? ' PRIMARY KEY' : '';
    const type = `${MYSQL_TYPES[column.kind]} ${column.nullable ? 'NULL' : 'NOT NULL'}${key}`;
    return `  ${quoteMysql(column.name)} ${type} COMMENT ${comment(column.comment, 1024)}`;
  });
  return (
    `CREATE TABLE ${quoteMysql(spec.name)} (\n${columns.join(',\n')}\n)` +
    ` ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci COMMENT=${comment(spec.comment, 2048)}`
  );
}

async function insertRows(connection: mysql.Connection, { spec, rows }: TelcoTableData, batchRows: number) {
  const names = spec.columns.map((column) => column.name);
  const sql = `INSERT INTO ${quoteMysql(spec.name)} (${names.map(quoteMysql).join(', ')}) VALUES ?`;
  for (let start = 0; start < rows.length; start += batchRows) {
    const batch = rows.slice(start, start + batchRows).map((row) => names.map((name) => row[name] ?? null));
    // query(), not execute(): `VALUES ?` with nested arrays is expanded client-side into one statement.
    await connection.query(sql, [batch]);
  }
}

async function loadTables(
  connection: mysql.Connection,
  target: MysqlTarget,
  tables: readonly TelcoTableData[],
  batchRows: number,
  urlFlag: string,
): Promise<TelcoRowCounts> {
  const database = quoteMysql(target.database);
  try {
    await connection.query(
      `CREATE DATABASE IF NOT EXISTS ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
    await connection.query(`USE ${database}`);
  } catch (error) {
    throw mysqlError(error, target, urlFlag, `creating database ${target.database}`, urlFlag);
  }
  try {
    for (const { spec } of tables) {
      await connection.query(`DROP TABLE IF EXISTS ${quoteMysql(spec.name)}`);
      await connection.query(mysqlCreateTable(spec));
    }
    await connection.beginTransaction();
    try {
      for (const table of tables) await insertRows(connection, table, batchRows);
      await connection.commit();
    } catch (error) {
      await connection.rollback();
      throw error;
    }
    const counts: TelcoRowCounts = {};
    for (const { spec } of tables) {
      const [rows] = await connection.query(`SELECT COUNT(*) AS n FROM ${quoteMysql(spec.name)}`);
      counts[spec.name] = Number((rows as Array<{ n: number | string }>)[0]?.n ?? 0);
    }
    return counts;
  } catch (error) {
    throw mysqlError(error, target, urlFlag, `loading the tables into ${target.database}`, urlFlag);
  }
}

/**
 * Creates the database named in `url` if needed, (re)creates the eight tables and loads them.
 * Returns the row count of each table as the server reports it.
 */
export async function loadIntoMysql(
  url: string,
  tables: readonly TelcoTableData[],
  options: LoadIntoMysqlOptions = {},
): Promise<TelcoRowCounts> {
  const urlFlag = options.urlFlag ?? '--target';
  const target = parseTelcoTarget(url, undefined, urlFlag);
  if (target.kind !== 'mysql') throw new TypeError(`loadIntoMysql needs a mysql:// URL, got ${target.kind}`);
  const connection = await connectMysql(target, urlFlag);
  try {
    return await loadTables(connection, target, tables, options.batchRows ?? 1000, urlFlag);
  } finally {
    await connection.end();
  }
}
