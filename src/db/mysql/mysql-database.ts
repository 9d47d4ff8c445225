/**
 * The Database port on MySQL/MariaDB (mysql2). Read-only in two layers: the statement guard, scoped to
 * the URL's database and `schemas`, then a connection whose session is READ ONLY, for a user that
 * should hold SELECT only. Every statement runs under a server-side time limit.
 */
import mysql, { type Connection as CoreConnection } from 'mysql2';
import type { Pool, PoolConnection } from 'mysql2/promise';
import {
  DatabaseUnavailableError,
  QueryCancelledError,
  QueryFailedError,
  QueryTimeoutError,
} from '../../base/errors.js';
import type { Logger } from '../../base/logger.js';
import type { TableDescription, TableInfo } from '../../ports/database.js';
import { mysqlTypeNameEncoding } from '../column-kind.js';
import type { EncodeOptions } from '../extract/encode-chunk.js';
import type { RowSource } from '../extract/extract-into-kernel.js';
import { checkReadOnlySql, type SqlScope } from '../guard/sql-guard.js';
import { StatementWatch } from '../statement-watch.js';
import { StreamingDatabase, type StreamingDatabaseOptions } from '../streaming-database.js';
import { describeFromSample } from '../table-metadata.js';
import { mysqlCatalogueFingerprint, readMysqlCatalogue } from './mysql-catalogue.js';
import { streamMysqlRows } from './mysql-rows.js';

export interface MysqlDatabaseOptions extends StreamingDatabaseOptions {
  /** `mysql://user:password@host:port/database`. */
  url: string;
  logger: Logger;
  /** Connections kept at most. Default 4. */
  poolSize?: number;
  /**
   * Schemas besides the URL's database that statements may name (DATABASE_SCHEMAS_<NAME>). Default none: only
   * the URL's database and information_schema's table/column/key metadata.
   */
  schemas?: readonly string[];
}

/** Server errors that mean "your statement hit its time limit" (MariaDB 1969, MySQL 3024). */
const TIMEOUT_CODES = new Set([1969, 3024]);
const COUNT_EXACTLY_BELOW = 1_000_000;

export class MysqlDatabase extends StreamingDatabase {
  readonly dialect = 'mysql' as const;

  private constructor(
    private readonly pool: Pool,
    private readonly mariadb: boolean,
    private readonly options: MysqlDatabaseOptions,
    /** What the guard lets statements read: the URL's database first, then `options.schemas`. */
    readonly scope: SqlScope,
  ) {
    super({ ...options, guard: options.guard ?? ((sql, dialect) => checkReadOnlySql(sql, dialect, scope)) });
  }

  static async connect(options: MysqlDatabaseOptions): Promise<MysqlDatabase> {
    const core = mysql.createPool({
      uri: options.url,
      connectionLimit: options.poolSize ?? 4,
      multipleStatements: false,
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: false,
      charset: 'utf8mb4',
      connectTimeout: 10_000,
    });
    const pool = core.promise();
    try {
      const [rows] = await pool.query('SELECT VERSION() AS version, DATABASE() AS db');
      const info = (rows as Array<{ version: string; db: string | null }>)[0];
      if (!info?.db) throw new Error('the URL names no database (mysql://user:password@host:port/DATABASE)');
      const scope = { schemas: [info.db, ...(options.schemas ?? []).filter((schema) => schema !== info.db)] };
      return new MysqlDatabase(pool, /mariadb/i.test(info.version), options, scope);
    } catch (error) {
      await pool.end().catch(() => {});
      throw new DatabaseUnavailableError(options.name, error instanceof Error ? error.message : String(error), error);
    }
  }

  async listTables(): Promise<TableInfo[]> {
    const [rows] = await this.pool.query(
      `SELECT TABLE_NAME AS name, TABLE_ROWS AS estimate, TABLE_COMMENT AS comment, TABLE_TYPE AS type
         FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME`,
    );
    const tables: TableInfo[] = [];
    for (const row of rows as Array<{ name: string; estimate: number | null; comment: string; type: string }>) {
      const estimate = Number(row.estimate ?? 0);
      const exact = estimate < COUNT_EXACTLY_BELOW ? await this.countRows(row.name) : undefined;
      tables.push({
        name: row.name,
        rows: exact ?? estimate,
        rowsExact: exact !== undefined,
        ...(row.comment ? { comment: row.comment } : {}),
      });
    }
    return tables;
  }

  async describeTable(table: string): Promise<TableDescription> {
    const info = (await this.listTables()).find((candidate) => candidate.name === table);
    if (!info) throw await this.noSuchTable(table);
    const [columns] = await this.pool.query(
      `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, DATA_TYPE AS dataType, IS_NULLABLE AS nullable,
              COLUMN_KEY AS columnKey, COLUMN_COMMENT AS comment
         FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
      [table],
    );
    const [sample] = await this.pool.query({ sql: `SELECT * FROM ${quote(table)} LIMIT 100`, rowsAsArray: true });
    return describeFromSample(
      info,
      (columns as Array<Record<string, string>>).map((column) => ({
        name: column.name ?? '',
        type: column.type ?? '',
        kind: mysqlTypeNameEncoding(column.dataType ?? '', column.type ?? '').kind,
        nullable: column.nullable === 'YES',
        key: ({ PRI: 'primary', UNI: 'unique', MUL: 'index' } as const)[column.columnKey as 'PRI'],
        comment: column.comment ?? '',
      })),
      sample as unknown[][],
    );
  }

  protected readCatalogue(): Promise<TableDescription[]> {
    return readMysqlCatalogue((sql) => this.rows(sql));
  }

  protected catalogueFingerprint(): Promise<string> {
    return mysqlCatalogueFingerprint((sql) => this.rows(sql));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** On a connection of its own; a statement stopped halfway takes its connection with it. */
  protected async withRows<T>(
    statement: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    use: (source: RowSource) => Promise<T>,
    batchRows?: number,
    columnar?: EncodeOptions,
  ): Promise<T> {
    if (signal?.aborted) throw new QueryCancelledError();
    const started = Date.now();
    const connection = await this.pool.getConnection();
    const threadId = connection.threadId;
    const watch = new StatementWatch(
      () =>
        this.pool.query(`KILL QUERY ${Number(threadId)}`).then(
          () => {},
          () => {},
        ),
      timeoutMs,
      signal,
    );
    try {
      await connection.query(this.sessionStatement(timeoutMs));
      const core = (connection as unknown as { connection: CoreConnection }).connection;
      const source = await streamMysqlRows(core, statement, watch.kill, batchRows, columnar);
      const result = await use(source);
      this.options.logger.debug({ database: this.name, elapsedMs: Date.now() - started }, 'statement finished');
      return result;
    } catch (error) {
      watch.broken = true;
      if (watch.stopped === 'cancelled') throw new QueryCancelledError();
      if (watch.stopped === 'timeout' || TIMEOUT_CODES.has(errno(error))) throw new QueryTimeoutError(timeoutMs);
      throw this.translate(error);
    } finally {
      watch.end();
      releaseOrDrop(connection, watch.broken);
    }
  }

  /**
   * Layer two, set again before every statement (so an earlier statement cannot have undone it):
   * the session is read-only, and the server stops the statement at its time limit.
   */
  private sessionStatement(timeoutMs: number): string {
    return this.mariadb
      ? `SET SESSION tx_read_only = 1, SESSION max_statement_time = ${Math.max(0.001, timeoutMs / 1000)}`
      : `SET SESSION transaction_read_only = 1, SESSION max_execution_time = ${Math.max(1, Math.round(timeoutMs))}`;
  }

  private async countRows(table: string): Promise<number | undefined> {
    const connection = await this.pool.getConnection();
    try {
      await connection.query(this.sessionStatement(5000));
      const [rows] = await connection.query(`SELECT COUNT(*) AS n FROM ${quote(table)}`);
      return Number((rows as Array<{ n: number }>)[0]?.n ?? 0);
    } catch {
      return undefined; // too slow or a broken view: the estimate stands
    } finally {
      connection.release();
    }
  }

  private async noSuchTable(table: string): Promise<QueryFailedError> {
    const names = (await this.listTables()).map((info) => info.name).join(', ');
    return new QueryFailedError(this.name, `no table named '${table}'. Tables: ${names}`);
  }

  private translate(error: unknown): Error {
    const code = (error as { code?: string }).code ?? '';
    if (/^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|PROTOCOL_CONNECTION_LOST|ER_ACCESS_DENIED_ERROR)$/.test(code)) {
      return new DatabaseUnavailableError(this.name, (error as Error).message, error);
    }
    if (error instanceof QueryFailedError) return error;
    if (error instanceof Error && 'sqlMessage' in error)
      return new QueryFailedError(this.name, String(error.sqlMessage), error);
    return error instanceof Error ? error : new Error(String(error));
  }
}

function errno(error: unknown): number {
  return Number((error as { errno?: number }).errno ?? 0);
}

/** A connection whose query was stopped halfway may still be sending rows: never reuse it. */
function releaseOrDrop(connection: PoolConnection, broken: boolean): void {
  if (broken) connection.destroy();
  else connection.release();
}

export function quote(identifier: string): string {
  return `\`${identifier.replaceAll('`', '``')}\``;
}
