/**
 * One plain connection to a MySQL/MariaDB or PostgreSQL server: no guard and no read-only session. For the
 * statements that set up what the database enforces (`tally policy apply`, under an administrator's URL given on its
 * command line) and for tally's own checks of them at start-up; never for a person's statement.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { isPostgresUrl } from './open-database.js';
import { postgresConnection } from './postgres/postgres-database.js';

export interface PlainConnection {
  readonly dialect: 'mysql' | 'postgres';
  /** Rows as objects; `params` bound by the driver (`?` on MySQL, `$1` on PostgreSQL). */
  query(sql: string, params?: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

export async function openPlainConnection(url: string): Promise<PlainConnection> {
  if (isPostgresUrl(url)) {
    // `?schema=` is tally's (the connector's search path), not a setting the server knows.
    const { connectionString } = postgresConnection(url).connection;
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000, application_name: 'tally' });
    await client.connect();
    return {
      dialect: 'postgres',
      query: async (sql, params) => (await client.query(sql, params ? [...params] : undefined)).rows,
      close: () => client.end(),
    };
  }
  const connection = await mysql.createConnection({
    uri: url.replace(/^mariadb:/, 'mysql:'),
    connectTimeout: 10_000,
    multipleStatements: false,
    dateStrings: true,
  });
  return {
    dialect: 'mysql',
    query: async (sql, params) => {
      const [rows] = await connection.query(sql, params ? [...params] : undefined);
      return Array.isArray(rows) ? (rows as Array<Record<string, unknown>>) : [];
    },
    close: () => connection.end(),
  };
}
