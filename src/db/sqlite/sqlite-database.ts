/**
 * The Database port on an embedded SQLite file: the default when no DATABASE_URL is set. Read-only
 * in layers: the statement guard, a statement that SQLite itself must call read-only, and a file
 * opened read-only with query_only on. Statements run in a worker with a time limit.
 */
import { access, constants } from 'node:fs/promises';
import { DatabaseUnavailableError, QueryFailedError } from '../../base/errors.js';
import type { TableDescription, TableInfo } from '../../ports/database.js';
import { type ColumnEncoding, sqliteColumnEncoding } from '../column-kind.js';
import type { EncodedChunk, EncodeOptions } from '../extract/encode-chunk.js';
import type { RowSource } from '../extract/extract-into-kernel.js';
import { StreamingDatabase, type StreamingDatabaseOptions } from '../streaming-database.js';
import { describeFromSample } from '../table-metadata.js';
import { encodeSqliteBatch, type SqliteBatch } from './sqlite-batch.js';
import { readSqliteCatalogue, sqlComments, sqliteCatalogueFingerprint } from './sqlite-catalogue.js';
import { SqliteRunner } from './sqlite-runner.js';

export interface SqliteDatabaseOptions extends StreamingDatabaseOptions {
  /** Path of the database file; it must exist. */
  path: string;
}

export class SqliteDatabase extends StreamingDatabase {
  readonly dialect = 'sqlite' as const;
  private readonly runner: SqliteRunner;

  private constructor(options: SqliteDatabaseOptions) {
    super(options);
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
    const [[sql] = []] = await this.rows(`SELECT sql FROM sqlite_master WHERE name = ${literal(table)}`);
    const comments = sqlComments(String(sql ?? ''));
    const sample = await this.rows(`SELECT * FROM ${quote(table)} LIMIT 100`);
    return describeFromSample(
      { ...info, ...(comments.table ? { comment: comments.table } : {}) },
      columns.map(([name, type, notNull, primary]) => ({
        name,
        type: type || '(none)',
        kind: sqliteColumnEncoding(type).kind,
        nullable: Number(notNull) === 0 && Number(primary) === 0,
        key: Number(primary) > 0 ? 'primary' : unique.has(name) ? 'unique' : undefined,
        comment: comments.columns.get(name),
      })),
      sample,
    );
  }

  protected readCatalogue(): Promise<TableDescription[]> {
    return readSqliteCatalogue((sql) => this.rows(sql));
  }

  protected catalogueFingerprint(): Promise<string> {
    return sqliteCatalogueFingerprint((sql) => this.rows(sql));
  }

  async close(): Promise<void> {
    await this.runner.close();
  }

  protected withRows<T>(
    statement: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    use: (source: RowSource) => Promise<T>,
    batchRows?: number,
    columnar?: EncodeOptions,
  ): Promise<T> {
    return this.runner.run(statement, { timeoutMs, signal, batchRows }, (running) => {
      const columns = running.columns.map((column) => ({
        name: column.name,
        type: column.type ?? '',
        encoding: sqliteColumnEncoding(column.type),
      }));
      const encodings = columns.map((column) => column.encoding);
      return use({
        columns,
        batches: running.batches,
        // Extraction encodes the worker's column-major batches as they are, without making rows.
        ...(columnar ? { chunks: encodeBatches(running.columnBatches, encodings, columnar) } : {}),
        cancel: running.cancel,
      });
    });
  }
}

async function* encodeBatches(
  batches: AsyncIterable<SqliteBatch>,
  encodings: ColumnEncoding[],
  options: EncodeOptions,
): AsyncGenerator<EncodedChunk> {
  for await (const batch of batches) yield encodeSqliteBatch(batch, encodings, options);
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
