/**
 * The places the telco loader writes to, each with a way to read it back, for the loader's tests:
 * a SQLite file, a MariaDB database (mariadb.ts) and a PostgreSQL database (postgres.ts).
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import type mysql from 'mysql2/promise';
import type pg from 'pg';
import { TELCO_COLUMNS } from '../../telco_data/telco-customer.js';
import { TELCO_TABLES } from '../../telco_data/telco-tables.js';
import { adminConnection } from './mariadb.js';
import { adminClient } from './postgres.js';

export type Row = Record<string, unknown>;

/** One place the loader wrote to, and a way to read it back. */
export interface Backend {
  target: string;
  /** Runs SQL written for MySQL and SQLite (unquoted `customerID`), as an admin. */
  all(sql: string): Promise<Row[]>;
  /** One checksum per table, computed by the database (MySQL, PostgreSQL) or over the sorted rows (SQLite). */
  checksums(): Promise<Record<string, string>>;
  execute(sql: string): Promise<void>;
}

export function sqliteBackend(path: string): Backend {
  const open = <T>(use: (database: Database.Database) => T, readonly = true): T => {
    const database = new Database(path, { readonly, fileMustExist: true });
    try {
      return use(database);
    } finally {
      database.close();
    }
  };
  return {
    target: `sqlite:${path}`,
    all: async (sql) => open((database) => database.prepare(sql).all() as Row[]),
    checksums: async () =>
      open((database) =>
        Object.fromEntries(
          TELCO_TABLES.map((spec) => {
            const rows = database.prepare(`SELECT * FROM ${spec.name} ORDER BY customerID`).raw().all();
            return [spec.name, createHash('sha256').update(JSON.stringify(rows)).digest('hex')];
          }),
        ),
      ),
    execute: async (sql) => open((database) => void database.exec(sql), false),
  };
}

export function mysqlBackend(database: { name: string; url: string }): Backend {
  const withConnection = async <T>(use: (connection: mysql.Connection) => Promise<T>): Promise<T> => {
    const connection = await adminConnection(database.name);
    try {
      return await use(connection);
    } finally {
      await connection.end();
    }
  };
  return {
    target: database.url,
    all: (sql) => withConnection(async (connection) => (await connection.query(sql))[0] as Row[]),
    checksums: () =>
      withConnection(async (connection) => {
        const [rows] = await connection.query(`CHECKSUM TABLE ${TELCO_TABLES.map((spec) => spec.name).join(', ')}`);
        return Object.fromEntries(
          (rows as Array<{ Table: string; Checksum: number | string }>).map((row) => [
            row.Table.split('.').at(-1),
            String(row.Checksum),
          ]),
        );
      }),
    execute: (sql) => withConnection(async (connection) => void (await connection.query(sql))),
  };
}

/** The IBM spelling of each column PostgreSQL holds in lower case, to read rows back as the other two give them. */
const IBM_NAMES = new Map(TELCO_COLUMNS.map((column) => [column.name.toLowerCase(), column.name]));
const ibmRow = (row: Row): Row =>
  Object.fromEntries(Object.entries(row).map(([name, value]) => [IBM_NAMES.get(name) ?? name, value]));

export function postgresBackend(database: { name: string; url: string }, schema = 'public'): Backend {
  const withClient = async <T>(use: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = await adminClient(database.name);
    try {
      await client.query(`SET search_path TO ${client.escapeIdentifier(schema)}`);
      return await use(client);
    } finally {
      await client.end();
    }
  };
  return {
    target: schema === 'public' ? database.url : `${database.url}?schema=${schema}`,
    all: (sql) => withClient(async (client) => ((await client.query(sql)).rows as Row[]).map(ibmRow)),
    checksums: () =>
      withClient(async (client) => {
        const sums: Record<string, string> = {};
        for (const { name } of TELCO_TABLES) {
          const { rows } = await client.query<{ sum: string }>(
            `SELECT md5(string_agg(t::text, E'\\n' ORDER BY t.customerid)) AS sum FROM ${name} t`,
          );
          sums[name] = rows[0]?.sum ?? '';
        }
        return sums;
      }),
    execute: (sql) => withClient(async (client) => void (await client.query(sql))),
  };
}
