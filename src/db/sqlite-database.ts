/**
 * The Database port on an embedded SQLite file: the default when no DATABASE_URL is set. Read-only
 * in layers: the statement guard, a statement that SQLite itself must call read-only, and a file
 * opened read-only with query_only on. Statements run in a worker with a time limit.
 */
import { access, constants } from 'node:fs/promises';
import { DatabaseUnavailableError, QueryFailedError, SqlRejectedError } from '../errors.js';
import type {
  Database,
  ExtractOptions,
  Provenance,
  QueryOptions,
  QueryResult,
  TableDescription,
  TableInfo,
} from '../ports/database.js';
import type { Kernel } from '../ports/sandbox.js';
import { sqliteColumnEncoding } from './column-kind.js';
import { checkFrameName, extractIntoKernel, type RowSource } from './extract/extract-into-kernel.js';
import { checkReadOnlySql } from './sql-guard.js';
import { SqliteRunner, type SqliteStatement } from './sqlite-runner.js';
import { type DatabaseLimits, describeFromSample } from './table-metadata.js';

export interface SqliteDatabaseOptions {
  name: string;
  /** Path of the database file; it must exist. */
  path: string;
  limits: DatabaseLimits;
  /** Replaces the statement guard (layer one). Only tests do, to show that layer two holds alone. */
  guard?: typeof checkReadOnlySql;
}

export class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  readonly name: string;
  private readonly runner: SqliteRunner;

  private constructor(private readonly options: SqliteDatabaseOptions) {
    this.name = options.name;
    this.runner = new SqliteRunner(options.path, options.name);
  }

  static async open(options: SqliteDatabaseOptions): Promise<SqliteDatabase> {
    try {
      await access(options.path, constants.R_OK);
    } catch (error) {
      throw new DatabaseUnavailableError(options.name, `no readable SQLite file at ${options.path}`, error);
    }
    const database = new SqliteDatabase(options);
    try {
      await database.rows('SELECT 1');
    } catch (error) {
      await database.close();
      throw new DatabaseUnavailableError(options.name, error instanceof Error ? error.message : String(error), error);
    }
    return database;
  }

  async listTables(): Promise<TableInfo[]> {
    const names = await this.rows(
      "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name",
    );
    const tables: TableInfo[] = [];
    for (const [name] of names as Array<[string]>) {
      const [[count] = [0]] = (await this.rows(`SELECT COUNT(*) FROM ${quote(name)}`)) as Array<[bigint | number]>;
      tables.push({ name, rows: Number(count), rowsExact: true });
    }
    return tables;
  }

  async describeTable(table: string): Promise<TableDescription> {
    const tables = await this.listTables();
    const info = tables.find((candidate) => candidate.name === table);
    if (!info) {
      throw new QueryFailedError(
        this.name,
        `no table named '${table}'. Tables: ${tables.map((t) => t.name).join(', ')}`,
      );
    }
    const columns = (await this.rows(
      `SELECT name, type, "notnull", pk FROM pragma_table_info(${literal(table)})`,
    )) as Array<[string, string, bigint, bigint]>;
    const unique = new Set(
      (
        (await this.rows(
          `SELECT ii.name FROM pragma_index_list(${literal(table)}) AS il, pragma_index_info(il.name) AS ii WHERE il."unique" = 1`,
        )) as Array<[string]>
      ).map(([name]) => name),
    );
    const sample = await this.rows(`SELECT * FROM ${quote(table)} LIMIT 100`);
    return describeFromSample(
      info,
      columns.map(([name, type, notNull, primary]) => ({
        name,
        type: type || '(none)',
        kind: sqliteColumnEncoding(type).kind,
        nullable: Number(notNull) === 0 && Number(primary) === 0,
        key: Number(primary) > 0 ? 'primary' : unique.has(name) ? 'unique' : undefined,
      })),
      sample,
    );
  }

  async query(sql: string, options: QueryOptions = {}): Promise<QueryResult> {
    const statement = this.guard(sql);
    const maxRows = options.maxRows ?? 1000;
    const started = performance.now();
    const timeoutMs = options.timeoutMs ?? this.options.limits.queryTimeoutMs;
    return this.runner.run(statement, timeoutMs, options.signal, async (running) => {
      const rows: unknown[][] = [];
      let truncated = false;
      for await (const batch of running.batches) {
        const room = maxRows - rows.length;
        if (batch.length > room) {
          rows.push(...batch.slice(0, room).map(plainRow));
          truncated = true;
          break;
        }
        rows.push(...batch.map(plainRow));
      }
      const columns = running.columns.map((column) => ({
        name: column.name,
        type: column.type ?? '',
        kind: sqliteColumnEncoding(column.type).kind,
      }));
      return { columns, rows, truncated, elapsedMs: performance.now() - started };
    });
  }

  async extract(sql: string, kernel: Kernel, name: string, options: ExtractOptions = {}): Promise<Provenance> {
    checkFrameName(name);
    const statement = this.guard(sql);
    const startedAt = Date.now();
    const limits = this.options.limits;
    const timeoutMs = options.timeoutMs ?? limits.extractTimeoutMs;
    return this.runner.run(statement, timeoutMs, options.signal, (running) =>
      extractIntoKernel({
        kernel,
        name,
        database: this.name,
        sql: statement,
        source: rowSource(running),
        options: {
          ...options,
          maxRows: options.maxRows ?? limits.extractMaxRows,
          maxBytes: options.maxBytes ?? limits.extractMaxBytes,
        },
        startedAt,
      }),
    );
  }

  async close(): Promise<void> {
    await this.runner.close();
  }

  private guard(sql: string): string {
    const verdict = (this.options.guard ?? checkReadOnlySql)(sql, 'sqlite');
    if (!verdict.ok) throw new SqlRejectedError(verdict.reason, verdict.message);
    return verdict.sql;
  }

  /** Every row of an internal (trusted) statement. */
  private rows(sql: string): Promise<unknown[][]> {
    return this.runner.run(sql, this.options.limits.queryTimeoutMs, undefined, async (running) => {
      const rows: unknown[][] = [];
      for await (const batch of running.batches) rows.push(...batch);
      return rows;
    });
  }
}

function rowSource(running: SqliteStatement): RowSource {
  return {
    columns: running.columns.map((column) => ({
      name: column.name,
      type: column.type ?? '',
      encoding: sqliteColumnEncoding(column.type),
    })),
    batches: running.batches,
    cancel: running.cancel,
  };
}

/** Query previews go to people and models as JSON: BigInt becomes a number when exact, else text. */
function plainRow(row: unknown[]): unknown[] {
  return row.map((value) =>
    typeof value === 'bigint' ? (Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()) : value,
  );
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
