/**
 * The Database port on PostgreSQL (pg). Read-only in three layers: the statement guard, scoped to the URL's
 * schema and `schemas`; a READ ONLY transaction around every statement; and the account, which the start-up
 * check (`postgres-account.ts`) wants to hold SELECT and USAGE only. Every statement runs under
 * `statement_timeout`, and a stop reaches the server through `pg_cancel_backend` from a second connection.
 */
import pg from 'pg';
import {
  DatabaseUnavailableError,
  QueryCancelledError,
  QueryFailedError,
  QueryTimeoutError,
} from '../../base/errors.js';
import type { Logger } from '../../base/logger.js';
import type { TableDescription, TableInfo } from '../../ports/database.js';
import type { EncodeOptions } from '../extract/encode-chunk.js';
import type { RowSource } from '../extract/extract-into-kernel.js';
import { checkReadOnlySql, type SqlScope } from '../guard/sql-guard.js';
import { StatementWatch } from '../statement-watch.js';
import { StreamingDatabase, type StreamingDatabaseOptions } from '../streaming-database.js';
import { describeFromSample } from '../table-metadata.js';
import { postgresCatalogueFingerprint, readPostgresCatalogue } from './postgres-catalogue.js';
import { copyRows, cursorRows } from './postgres-rows.js';
import { postgresTypeNameEncoding } from './postgres-types.js';

export interface PostgresDatabaseOptions extends StreamingDatabaseOptions {
  /** `postgres://user:password@host:port/database[?schema=name]` (or `postgresql://`). */
  url: string;
  logger: Logger;
  /** Connections kept at most. Default 4. */
  poolSize?: number;
  /** Schemas besides the URL's that statements may name (DATABASE_SCHEMAS_<NAME>). */
  schemas?: readonly string[];
}

const COUNT_EXACTLY_BELOW = 1_000_000;
/** SQLSTATE query_canceled: a statement_timeout or a pg_cancel_backend. */
const CANCELED = '57014';
const UNAVAILABLE = /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EPIPE|28P01|28000|3D000|57P0[1-3])$/;

export class PostgresDatabase extends StreamingDatabase {
  readonly dialect = 'postgres' as const;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly connection: pg.ClientConfig,
    private readonly options: PostgresDatabaseOptions,
    /** What the guard lets statements read: the URL's schema first, then `options.schemas`. */
    readonly scope: SqlScope,
  ) {
    super({ ...options, guard: options.guard ?? ((sql, dialect) => checkReadOnlySql(sql, dialect, scope)) });
  }

  static async connect(options: PostgresDatabaseOptions): Promise<PostgresDatabase> {
    const { connection, schema } = postgresConnection(options.url);
    const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 4 });
    pool.on('error', (error) => options.logger.warn({ err: error.message }, 'idle PostgreSQL connection failed'));
    try {
      const { rows } = await pool.query<{ schema: string | null }>('SELECT current_schema() AS schema');
      const own = schema ?? rows[0]?.schema;
      if (!own) throw new Error('the account has no current schema: name one with ?schema=name in the URL');
      const scope = { schemas: [own, ...(options.schemas ?? []).filter((other) => other !== own)] };
      return new PostgresDatabase(pool, connection, options, scope);
    } catch (error) {
      await pool.end().catch(() => {});
      throw new DatabaseUnavailableError(options.name, error instanceof Error ? error.message : String(error), error);
    }
  }

  private get schema(): string {
    return this.scope.schemas[0] ?? 'public';
  }

  async listTables(): Promise<TableInfo[]> {
    const rows = (await this.rows(
      `SELECT c.relname, c.reltuples::float8, obj_description(c.oid, 'pg_class')
         FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${literal(this.schema)} AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
        ORDER BY c.relname`,
    )) as Array<[string, number, string | null]>;
    const tables: TableInfo[] = [];
    for (const [name, estimate, comment] of rows) {
      // reltuples is -1 until the table is first analysed: count it then.
      const exact = estimate < COUNT_EXACTLY_BELOW ? await this.countRows(name) : undefined;
      tables.push({
        name,
        rows: exact ?? Math.max(0, Math.round(estimate)),
        rowsExact: exact !== undefined,
        ...(comment ? { comment } : {}),
      });
    }
    return tables;
  }

  async describeTable(table: string): Promise<TableDescription> {
    const tables = await this.listTables();
    const info = tables.find((candidate) => candidate.name === table);
    if (!info) {
      const names = tables.map((candidate) => candidate.name).join(', ');
      throw new QueryFailedError(this.name, `no table named '${table}'. Tables: ${names}`);
    }
    const relation = `${quote(this.schema)}.${quote(table)}`;
    const columns = (await this.rows(
      `SELECT a.attname, format_type(a.atttypid, a.atttypmod), t.typname, NOT a.attnotnull,
              col_description(a.attrelid, a.attnum),
              (SELECT CASE WHEN bool_or(i.indisprimary) THEN 'primary' WHEN bool_or(i.indisunique) THEN 'unique' WHEN count(*) > 0 THEN 'index' END
                 FROM pg_catalog.pg_index i WHERE i.indrelid = a.attrelid AND i.indkey[0] = a.attnum)
         FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
        WHERE a.attrelid = ${literal(relation)}::regclass AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`,
    )) as Array<[string, string, string, boolean, string | null, 'primary' | 'unique' | 'index' | null]>;
    const sample = await this.rows(`SELECT * FROM ${relation} LIMIT 100`);
    return describeFromSample(
      info,
      columns.map(([name, type, typeName, nullable, comment, key]) => ({
        name,
        type,
        kind: postgresTypeNameEncoding(typeName).kind,
        nullable,
        key: key ?? undefined,
        comment: comment ?? undefined,
      })),
      sample,
    );
  }

  protected readCatalogue(): Promise<TableDescription[]> {
    return readPostgresCatalogue((sql) => this.rows(sql), this.schema);
  }

  protected catalogueFingerprint(): Promise<string> {
    return postgresCatalogueFingerprint((sql) => this.rows(sql), this.schema);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** In a READ ONLY transaction on a connection of its own; a statement stopped halfway takes its connection with it. */
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
    const client = await this.connect();
    const pid = (client as unknown as { processID: number }).processID;
    const watch = new StatementWatch(() => this.cancelBackend(pid), timeoutMs, signal);
    let open = false;
    try {
      open = true;
      await client.query(this.transactionStart(timeoutMs));
      const source = columnar
        ? await copyRows(client, statement, watch.kill, columnar)
        : await cursorRows(client, statement, batchRows);
      const result = await use(source);
      await client.query('COMMIT');
      open = false;
      this.options.logger.debug({ database: this.name, elapsedMs: Date.now() - started }, 'statement finished');
      return result;
    } catch (error) {
      if (watch.stopped === 'cancelled') throw new QueryCancelledError();
      if (watch.stopped === 'timeout' || isStatementTimeout(error)) throw new QueryTimeoutError(timeoutMs);
      if (isCanceled(error)) throw new QueryCancelledError();
      throw this.translate(error);
    } finally {
      watch.end();
      await this.release(client, watch.broken, open);
    }
  }

  /**
   * Layer two, opened before every statement: a READ ONLY transaction (nothing it runs can write, whatever
   * the guard missed), the time limit, and the settings the readers rely on (UTC, ISO dates, hex bytea).
   */
  private transactionStart(timeoutMs: number): string {
    return [
      'BEGIN READ ONLY',
      `SET LOCAL statement_timeout = ${Math.max(1, Math.round(timeoutMs))}`,
      `SET LOCAL search_path = ${quote(this.schema)}`,
      "SET LOCAL TimeZone = 'UTC'",
      "SET LOCAL DateStyle = 'ISO, YMD'",
      "SET LOCAL IntervalStyle = 'postgres'",
      "SET LOCAL bytea_output = 'hex'",
      'SET LOCAL standard_conforming_strings = on',
      'SET LOCAL extra_float_digits = 1',
    ].join('; ');
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** After an error the transaction is rolled back; a connection that was stopped mid-statement is dropped. */
  private async release(client: pg.PoolClient, broken: boolean, open: boolean): Promise<void> {
    if (open && !broken) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
    }
    client.release(broken);
  }

  /** From a second connection, as the server's own timeout would: the statement stops, its connection lives. */
  private async cancelBackend(pid: number): Promise<void> {
    const canceller = new pg.Client(this.connection);
    try {
      await canceller.connect();
      await canceller.query('SELECT pg_cancel_backend($1)', [pid]);
    } catch (error) {
      this.options.logger.warn({ database: this.name, err: (error as Error).message }, 'could not cancel a statement');
    } finally {
      await canceller.end().catch(() => {});
    }
  }

  private async countRows(table: string): Promise<number | undefined> {
    try {
      const [[count] = [0]] = (await this.withRows(
        `SELECT count(*) FROM ${quote(this.schema)}.${quote(table)}`,
        5000,
        undefined,
        async (source) => {
          const rows: unknown[][] = [];
          for await (const batch of source.batches) rows.push(...batch);
          return rows;
        },
      )) as Array<[number | string]>;
      return Number(count);
    } catch {
      return undefined; // too slow or a broken view: the estimate stands
    }
  }

  private translate(error: unknown): Error {
    const code = (error as { code?: string }).code ?? '';
    if (UNAVAILABLE.test(code)) return new DatabaseUnavailableError(this.name, (error as Error).message, error);
    if (error instanceof QueryFailedError) return error;
    if (error instanceof pg.DatabaseError) return new QueryFailedError(this.name, error.message, error);
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** The pg connection settings of a URL, and the schema it names (`?schema=`, or the first of `?search_path=`). */
export function postgresConnection(url: string): { connection: pg.ClientConfig; schema: string | undefined } {
  const parsed = new URL(url.replace(/^postgresql:/, 'postgres:'));
  const schema = parsed.searchParams.get('schema') ?? parsed.searchParams.get('search_path')?.split(',')[0]?.trim();
  parsed.searchParams.delete('schema');
  parsed.searchParams.delete('search_path');
  return {
    connection: { connectionString: parsed.toString(), connectionTimeoutMillis: 10_000, application_name: 'tally' },
    schema: schema || undefined,
  };
}

function isCanceled(error: unknown): boolean {
  return (error as { code?: string }).code === CANCELED;
}

function isStatementTimeout(error: unknown): boolean {
  return isCanceled(error) && /statement timeout/i.test((error as Error).message);
}

export function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** A string literal (the transaction turns standard_conforming_strings on: a backslash is just a backslash). */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
