/**
 * What both connectors share: the guard in front of every statement, previews capped at `maxRows`,
 * and extraction into a kernel. A connector supplies metadata and one primitive, `withRows`: run a
 * trusted statement under a time limit and hand its rows over in batches.
 */
import { SqlRejectedError } from '../base/errors.js';
import type {
  Catalogue,
  CatalogueOptions,
  Database,
  ExtractOptions,
  Provenance,
  QueryOptions,
  QueryResult,
  TableDescription,
  TableInfo,
} from '../ports/database.js';
import type { Kernel } from '../ports/sandbox.js';
import { CatalogueCache, type CatalogueCacheOptions } from './catalogue-cache.js';
import type { EncodeOptions } from './extract/encode-chunk.js';
import { checkFrameName, extractIntoKernel, type RowSource } from './extract/extract-into-kernel.js';
import { checkReadOnlySql, type SqlDialect } from './guard/sql-guard.js';
import type { DatabaseLimits } from './table-metadata.js';

export interface StreamingDatabaseOptions {
  name: string;
  limits: DatabaseLimits;
  /** Replaces the statement guard (layer one). Only tests do, to show that layer two holds alone. */
  guard?: typeof checkReadOnlySql;
  /** How long the catalogue is kept and how often its fingerprint is checked. */
  catalogue?: CatalogueCacheOptions;
}

export abstract class StreamingDatabase implements Database {
  abstract readonly dialect: SqlDialect;
  readonly name: string;
  protected readonly limits: DatabaseLimits;
  private readonly guardSql: typeof checkReadOnlySql;
  private readonly catalogueCache: CatalogueCache;

  protected constructor(options: StreamingDatabaseOptions) {
    this.name = options.name;
    this.limits = options.limits;
    this.guardSql = options.guard ?? checkReadOnlySql;
    this.catalogueCache = new CatalogueCache(
      { read: () => this.readCatalogue(), fingerprint: () => this.catalogueFingerprint() },
      options.catalogue,
    );
  }

  abstract listTables(): Promise<TableInfo[]>;
  abstract describeTable(table: string): Promise<TableDescription>;
  abstract close(): Promise<void>;

  catalogue(options?: CatalogueOptions): Promise<Catalogue> {
    return this.catalogueCache.get(options);
  }

  /** Every table with its columns, comments, keys and row counts or estimates, in a few bulk catalogue queries. */
  protected abstract readCatalogue(): Promise<TableDescription[]>;
  /** One cheap query whose answer changes when tables, columns or comments do. */
  protected abstract catalogueFingerprint(): Promise<string>;

  /**
   * Runs `statement` (already guarded, or internal) under a server-side time limit and hands its
   * rows to `use` in batches of at most `batchRows`. Timeouts, cancellation and server errors come
   * back as coded errors. With `columnar`, a connector that can encode its driver's bytes itself
   * hands over `source.chunks` instead.
   */
  protected abstract withRows<T>(
    statement: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    use: (source: RowSource) => Promise<T>,
    batchRows?: number,
    columnar?: EncodeOptions,
  ): Promise<T>;

  async query(sql: string, options: QueryOptions = {}): Promise<QueryResult> {
    const statement = this.guard(sql);
    const maxRows = options.maxRows ?? 1000;
    const started = performance.now();
    const timeoutMs = options.timeoutMs ?? this.limits.queryTimeoutMs;
    return this.withRows(
      statement,
      timeoutMs,
      options.signal,
      async (source) => {
        const rows: unknown[][] = [];
        let truncated = false;
        for await (const batch of source.batches) {
          const room = maxRows - rows.length;
          rows.push(...batch.slice(0, room).map(plainRow));
          if (batch.length > room) {
            truncated = true;
            await source.cancel();
            break;
          }
        }
        const columns = source.columns.map(({ name, type, encoding }) => ({ name, type, kind: encoding.kind }));
        return { columns, rows, truncated, elapsedMs: performance.now() - started };
      },
      maxRows + 1,
    );
  }

  async extract(sql: string, kernel: Kernel, name: string, options: ExtractOptions = {}): Promise<Provenance> {
    checkFrameName(name);
    const statement = this.guard(sql);
    const startedAt = Date.now();
    const { limits } = this;
    const timeoutMs = options.timeoutMs ?? limits.extractTimeoutMs;
    return this.withRows(
      statement,
      timeoutMs,
      options.signal,
      (source) =>
        extractIntoKernel({
          kernel,
          name,
          database: this.name,
          sql: options.described?.sql ?? statement,
          source,
          options: {
            ...options,
            maxRows: options.maxRows ?? limits.extractMaxRows,
            maxBytes: options.maxBytes ?? limits.extractMaxBytes,
            timeoutMs,
          },
          startedAt,
        }),
      undefined,
      { exactDecimals: options.exactDecimals ?? false },
    );
  }

  /** Every row of an internal (trusted) statement, for metadata. */
  protected rows(sql: string): Promise<unknown[][]> {
    return this.withRows(sql, this.limits.queryTimeoutMs, undefined, async (source) => {
      const rows: unknown[][] = [];
      for await (const batch of source.batches) rows.push(...batch);
      return rows;
    });
  }

  private guard(sql: string): string {
    const verdict = this.guardSql(sql, this.dialect);
    if (!verdict.ok) throw new SqlRejectedError(verdict.reason, verdict.message);
    return verdict.sql;
  }
}

/** Previews go to people and models as JSON: BigInt becomes a number when exact, else text. */
function plainRow(row: unknown[]): unknown[] {
  return row.map((value) =>
    typeof value === 'bigint' ? (Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()) : value,
  );
}
