/**
 * Writes the telco_db tables into PostgreSQL, in the schema named by the URL's `?schema=` (default
 * `public`), with table and column comments from the data dictionary. Column names are the IBM ones
 * in lower case (`customerid`), as PostgreSQL folds unquoted names: SQL written for MySQL or SQLite, by
 * people or the model, runs unchanged (`SELECT customerID …`), where mixed-case names would have to be
 * quoted in every statement. PostgreSQL's DDL is transactional, so the
 * whole load (drop, create, COPY) is one transaction: a reader never sees half a dataset, and a
 * failed re-run leaves the previous tables as they were.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { TelcoRowCounts, TelcoTableData } from './build-telco-tables.js';
import {
  connectPostgres,
  NO_SUCH_DATABASE,
  type PostgresTarget,
  postgresError,
  quotePostgres,
} from './postgres-connection.js';
import { TelcoError } from './telco-error.js';
import type { TelcoCell } from './telco-tables.js';
import { POSTGRES_TYPES, type TelcoTableSpec } from './telco-tables.js';
import { parseTelcoTarget } from './telco-target.js';

export interface LoadIntoPostgresOptions {
  /** Rows per chunk written to COPY. Default 1000. */
  batchRows?: number;
  /** The option that gave the URL, for error messages: `--url` or `--target` (default). */
  urlFlag?: string;
}

/** Where CREATE DATABASE runs when the target database does not exist yet. */
const MAINTENANCE_DATABASE = 'postgres';

/** DROP, CREATE TABLE and its COMMENTs, as one multi-statement string for one round trip. */
export function postgresCreateTable(spec: TelcoTableSpec, schema: string): string {
  const table = `${quotePostgres(schema)}.${quotePostgres(spec.name)}`;
  const columns = spec.columns.map((column) => {
    const key = column.kind === 'id' ? ' PRIMARY KEY' : '';
    return `  ${quotePostgres(postgresColumn(column.name))} ${POSTGRES_TYPES[column.kind]}${column.nullable ? '' : ' NOT NULL'}${key}`;
  });
  return [
    `DROP TABLE IF EXISTS ${table}`,
    `CREATE TABLE ${table} (\n${columns.join(',\n')}\n)`,
    `COMMENT ON TABLE ${table} IS ${pg.escapeLiteral(spec.comment)}`,
    ...spec.columns.map(
      (column) =>
        `COMMENT ON COLUMN ${table}.${quotePostgres(postgresColumn(column.name))} IS ${pg.escapeLiteral(column.comment)}`,
    ),
  ].join(';\n');
}

/** The name a column has in PostgreSQL: the IBM name as an unquoted identifier would fold it. */
export function postgresColumn(name: string): string {
  return name.toLowerCase();
}

/** A value in COPY's text format: `\N` is NULL, and backslash, tab and line breaks are escaped. */
function copyText(value: TelcoCell | undefined): string {
  if (value === null || value === undefined) return '\\N';
  return String(value).replace(/[\\\t\n\r]/g, (character) => {
    const escapes: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
    return escapes[character] ?? character;
  });
}

/** Streams the rows with COPY FROM STDIN, `batchRows` lines to a chunk. */
async function copyRows(client: pg.Client, schema: string, { spec, rows }: TelcoTableData, batchRows: number) {
  const names = spec.columns.map((column) => column.name);
  const table = `${quotePostgres(schema)}.${quotePostgres(spec.name)}`;
  const stream = client.query(
    copyFrom(`COPY ${table} (${names.map((name) => quotePostgres(postgresColumn(name))).join(', ')}) FROM STDIN`),
  );
  function* chunks(): Generator<string> {
    for (let start = 0; start < rows.length; start += batchRows) {
      const batch = rows.slice(start, start + batchRows);
      yield batch.map((row) => `${names.map((name) => copyText(row[name])).join('\t')}\n`).join('');
    }
  }
  await pipeline(Readable.from(chunks()), stream);
}

/** Connects to the target database, creating it first when it does not exist. */
async function openDatabase(target: PostgresTarget, urlFlag: string): Promise<pg.Client> {
  try {
    return await connectPostgres(target, target.database, urlFlag);
  } catch (error) {
    if (!(error instanceof TelcoError && error.details.code === NO_SUCH_DATABASE)) throw error;
  }
  const maintenance = await connectPostgres(target, MAINTENANCE_DATABASE, urlFlag);
  try {
    await maintenance.query(`CREATE DATABASE ${quotePostgres(target.database)}`);
  } catch (error) {
    // duplicate_database: another loader created it meanwhile.
    if ((error as { code?: unknown }).code !== '42P04') {
      throw postgresError(error, target, urlFlag, `creating database ${target.database}`, urlFlag);
    }
  } finally {
    await maintenance.end();
  }
  return await connectPostgres(target, target.database, urlFlag);
}

async function loadTables(
  client: pg.Client,
  target: PostgresTarget,
  tables: readonly TelcoTableData[],
  batchRows: number,
): Promise<TelcoRowCounts> {
  const schema = quotePostgres(target.schema);
  await client.query('BEGIN');
  try {
    // Only when missing: CREATE SCHEMA IF NOT EXISTS still needs CREATE on the database.
    const existing = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [target.schema]);
    if (existing.rowCount === 0) await client.query(`CREATE SCHEMA ${schema}`);
    for (const table of tables) {
      await client.query(postgresCreateTable(table.spec, target.schema));
      await copyRows(client, target.schema, table, batchRows);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
  const counts: TelcoRowCounts = {};
  for (const { spec } of tables) {
    const { rows } = await client.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM ${schema}.${quotePostgres(spec.name)}`,
    );
    counts[spec.name] = Number(rows[0]?.n ?? 0);
  }
  return counts;
}

/**
 * Creates the database named in `url` if needed, (re)creates the eight tables in its schema and loads
 * them. Returns the row count of each table as the server reports it.
 */
export async function loadIntoPostgres(
  url: string,
  tables: readonly TelcoTableData[],
  options: LoadIntoPostgresOptions = {},
): Promise<TelcoRowCounts> {
  const urlFlag = options.urlFlag ?? '--target';
  const target = parseTelcoTarget(url, undefined, urlFlag);
  if (target.kind !== 'postgres') throw new TypeError(`loadIntoPostgres needs a postgres:// URL, got ${target.kind}`);
  const client = await openDatabase(target, urlFlag);
  try {
    return await loadTables(client, target, tables, options.batchRows ?? 1000);
  } catch (error) {
    if (error instanceof TelcoError) throw error;
    throw postgresError(error, target, urlFlag, `loading the tables into ${target.database}`, urlFlag);
  } finally {
    await client.end();
  }
}
