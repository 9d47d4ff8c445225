/**
 * The database port: read-only access to a relational database, and extraction of a query's rows
 * into a session's kernel as a pandas DataFrame. Implemented in `src/db/` for MySQL/MariaDB, PostgreSQL and SQLite.
 */
import type { Kernel } from './sandbox.js';

/** How a column's values are carried into pandas. */
export type ColumnKind =
  | 'integer'
  | 'float'
  | 'decimal'
  | 'boolean'
  | 'text'
  | 'date'
  | 'datetime'
  | 'time'
  | 'binary'
  | 'json'
  /** SQLite expressions without a declared type: decided from the values. */
  | 'dynamic';

export interface ColumnInfo {
  name: string;
  /** The database's own type, e.g. `decimal(8,2)`, `varchar(40)`. */
  type: string;
  kind: ColumnKind;
  nullable: boolean;
  key?: 'primary' | 'unique' | 'index';
  comment?: string;
  /** A few distinct non-null values, as text. */
  samples?: string[];
  /** The column a foreign key on this column references, in the same schema. */
  references?: { table: string; column: string };
}

export interface TableInfo {
  name: string;
  rows: number;
  /** False when `rows` is the engine's estimate (large InnoDB tables). */
  rowsExact: boolean;
  comment?: string;
}

export interface TableDescription extends TableInfo {
  columns: ColumnInfo[];
}

/**
 * Every table of a database with its columns (without samples), row counts or estimates, comments and foreign
 * keys: read in a few bulk catalogue queries and kept by the connector until the schema changes.
 */
export interface Catalogue {
  /** By name. */
  tables: TableDescription[];
  /** Changes when the schema does (tables, columns, comments); equal versions mean the same tables. */
  version: string;
}

export interface CatalogueOptions {
  /** Read it again now, whatever is kept. Default false. */
  fresh?: boolean;
  /**
   * What is kept, at once, when it was checked lately (within a minute by default): a fingerprint check or read that
   * is due runs in the background and the next call sees what it found. For a turn's prompts. Default false.
   */
  kept?: boolean;
}

export interface QueryColumn {
  name: string;
  type: string;
  kind: ColumnKind;
}

/** What one statement read under the access policy, as the policed connector saw it (for the audit trail). */
export interface StatementAccess {
  tables: string[];
  /** `table.column`. */
  columns: string[];
  /** `table.column (hash|redact)`. */
  masked: string[];
  /**
   * What held the policy: `database login tally_p_…` (the statement ran as a login that reads only views of what
   * the person may see) or `rewrite` (tally put masking views in front of the statement; SQLite, or no `apply`).
   */
  enforcedBy: string;
}

export interface QueryResult {
  columns: QueryColumn[];
  /** Rows as arrays in column order; values as the driver gives them (decimals as strings). */
  rows: unknown[][];
  /** More rows existed than `maxRows`. */
  truncated: boolean;
  elapsedMs: number;
  /** Set under the access policy: what the statement read. The audit trail takes it off before anyone else sees it. */
  access?: StatementAccess;
}

export interface QueryOptions {
  /** Rows to return at most. Default 1000. */
  maxRows?: number;
  /** Server-side time limit in ms. Default from config (TALLY_QUERY_TIMEOUT_MS). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ExtractProgress {
  rows: number;
  bytes: number;
  elapsedMs: number;
}

export interface ExtractOptions {
  /** Refuse results with more rows. Default from config (TALLY_EXTRACT_MAX_ROWS). */
  maxRows?: number;
  /** Refuse results larger than this once encoded. Default from config (TALLY_EXTRACT_MAX_BYTES). */
  maxBytes?: number;
  timeoutMs?: number;
  /** Keep DECIMAL columns as exact strings instead of float64. Default false. */
  exactDecimals?: boolean;
  /** The extraction rebuilds a kernel from its thread's journal (another replica, a restart): the audit says so. */
  replay?: boolean;
  /**
   * What the provenance records instead of the statement run: the statement as the person wrote it, and the
   * columns the access policy masked in it (the statement run then reads masked views).
   */
  described?: { sql: string; masked: MaskedColumn[]; enforcedBy: string };
  /** Called after every chunk of rows written. */
  onProgress?: (progress: ExtractProgress) => void;
  signal?: AbortSignal;
}

/** A column the access policy masked in an extraction, and how. */
export interface MaskedColumn {
  /** `table.column`. */
  column: string;
  treatment: 'hash' | 'redact';
}

/** Where a DataFrame came from: kept with it in the kernel (`df.attrs["provenance"]`) and in reports. */
export interface Provenance {
  /** The DataFrame's variable name in the kernel. */
  name: string;
  database: string;
  sql: string;
  rows: number;
  columns: Array<{ name: string; type: string; kind: ColumnKind; dtype: string }>;
  elapsedMs: number;
  bytes: number;
  /** SHA-256 of the extracted data as written. */
  sha256: string;
  /** ISO 8601. */
  extractedAt: string;
  /** Columns the access policy masked before the rows left the database. */
  masked?: MaskedColumn[];
  /** Under the access policy, what masked them (`StatementAccess.enforcedBy`). */
  maskedBy?: string;
  /** Set under the access policy: what the statement read. The audit trail takes it off before anyone else sees it. */
  access?: StatementAccess;
}

export interface Database {
  /** The name this database is configured under (e.g. `telco`). */
  readonly name: string;
  readonly dialect: 'mysql' | 'sqlite' | 'postgres';
  listTables(): Promise<TableInfo[]>;
  describeTable(table: string): Promise<TableDescription>;
  /**
   * Every table with its columns at once, kept between calls and read again when the schema changed (or after a
   * while). Optional: without it, callers fall back to `listTables` and `describeTable`.
   */
  catalogue?(options?: CatalogueOptions): Promise<Catalogue>;
  /** Runs one read-only statement; SQL the guard rejects throws `SqlRejectedError`. */
  query(sql: string, options?: QueryOptions): Promise<QueryResult>;
  /** Streams a query's rows into the kernel as a typed DataFrame named `name`. */
  extract(sql: string, kernel: Kernel, name: string, options?: ExtractOptions): Promise<Provenance>;
  close(): Promise<void>;
}
