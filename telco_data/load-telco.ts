/**
 * Builds telco_db end to end: customers (generated, or read from the IBM CSV), split and damaged
 * into eight tables, loaded into SQLite, MySQL/MariaDB or PostgreSQL, optionally with tally's
 * read-only account.
 * The demo calls `loadTelco({ target: 'sqlite:.tally/telco.db' })` when the file is missing.
 */
import { performance } from 'node:perf_hooks';
import { buildTelcoTables, type TelcoRowCounts } from './build-telco-tables.js';
import { checkReadonlyRole, createReadonlyRole, type ReadonlyRole } from './create-readonly-role.js';
import { createReadonlyUser, type ReadonlyUser } from './create-readonly-user.js';
import { DEFAULT_ROWS, DEFAULT_SEED, generateCustomers } from './generate-customers.js';
import type { InjectedProblems, TelcoDamageOptions } from './inject-damage.js';
import { loadIntoMysql } from './load-into-mysql.js';
import { loadIntoPostgres } from './load-into-postgres.js';
import { loadIntoSqlite } from './load-into-sqlite.js';
import { readTelcoCsv } from './parse-telco-csv.js';
import type { TelcoCustomer } from './telco-customer.js';
import { invalidArgument } from './telco-error.js';
import { parseTelcoTarget, type TelcoTarget } from './telco-target.js';

export interface LoadTelcoOptions {
  /**
   * Where to load: `sqlite:<path>` (relative to `cwd`), `mysql://user:password@host:port/telco_db` or
   * `postgres://user:password@host:port/telco_db?schema=public`. Exactly one of `url` and `target`.
   */
  url?: string;
  /** The older name of `url`; errors then name `--target` instead of `--url`. */
  target?: string;
  /** Read customers from the IBM CSV instead of generating them. */
  csvPath?: string;
  /** Seed of the generator, the 80/20 split and the damage. Default 42. */
  seed?: number;
  /** Customers to generate (not with `csvPath`). Default 7043. */
  rows?: number;
  /** Create this read-only account (MySQL) or role (PostgreSQL) for tally. */
  readonlyUser?: { name: string; password: string };
  /** Override the amount of injected damage (tests). */
  damage?: TelcoDamageOptions | false;
  /** Folder `sqlite:` paths are relative to. Default `process.cwd()`. */
  cwd?: string;
}

/** What was built: printed by the CLI, asserted on by tests. Holds no password. */
export interface TelcoLoadReport {
  /** The target with any password replaced by `***`. */
  target: string;
  kind: TelcoTarget['kind'];
  /** Absolute SQLite file path, or the server's database name. */
  database: string;
  /** The PostgreSQL schema the tables are in. */
  schema?: string;
  source: { kind: 'generator'; seed: number; rows: number } | { kind: 'csv'; path: string; rows: number };
  seed: number;
  trainCustomers: number;
  testCustomers: number;
  /** Rows per table as counted in the database after loading. */
  tableRows: TelcoRowCounts;
  problems: InjectedProblems;
  readonlyUser?: ReadonlyUser | ReadonlyRole;
  durationMs: number;
}

function checkWholeNumber(flag: string, value: number | undefined, minimum: number): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < minimum)) {
    throw invalidArgument(flag, `expected a whole number >= ${minimum}, got ${value}`);
  }
}

/** The location and the flag that gave it; both or neither is a mistake. */
function location(options: LoadTelcoOptions): { text: string; urlFlag: string } {
  if (options.url !== undefined && options.target !== undefined) {
    throw invalidArgument('--url', 'give --url or --target (its older name), not both');
  }
  if (options.url !== undefined) return { text: options.url, urlFlag: '--url' };
  if (options.target !== undefined) return { text: options.target, urlFlag: '--target' };
  throw invalidArgument('--url', 'is required (sqlite:<path>, mysql://... or postgres://...)');
}

/** Validates every option before anything is written, so a typo never leaves a half-built database. */
function checkOptions(options: LoadTelcoOptions): void {
  checkWholeNumber('--seed', options.seed, 0);
  checkWholeNumber('--rows', options.rows, 1);
  if (options.seed !== undefined && options.seed > 0xffffffff) {
    throw invalidArgument('--seed', `expected at most ${0xffffffff}, got ${options.seed}`);
  }
  if (options.csvPath !== undefined && options.rows !== undefined) {
    throw invalidArgument('--rows', 'applies to the generator only; drop it when --csv is given');
  }
}

/** Builds telco_db at `options.target` and reports what it loaded and which damage it injected. */
export async function loadTelco(options: LoadTelcoOptions): Promise<TelcoLoadReport> {
  const started = performance.now();
  checkOptions(options);
  const { text, urlFlag } = location(options);
  const target = parseTelcoTarget(text, options.cwd, urlFlag);
  if (options.readonlyUser && target.kind === 'sqlite') {
    throw invalidArgument(
      '--readonly-user',
      `only applies to a mysql:// or postgres:// ${urlFlag} (SQLite has no users)`,
    );
  }
  const readonly = options.readonlyUser && { ...options.readonlyUser, urlFlag };
  if (readonly && target.kind === 'postgres') checkReadonlyRole(text, readonly);
  const seed = options.seed ?? DEFAULT_SEED;
  let customers: TelcoCustomer[];
  let source: TelcoLoadReport['source'];
  if (options.csvPath === undefined) {
    const rows = options.rows ?? DEFAULT_ROWS;
    customers = generateCustomers({ rows, seed });
    source = { kind: 'generator', seed, rows };
  } else {
    customers = readTelcoCsv(options.csvPath);
    source = { kind: 'csv', path: options.csvPath, rows: customers.length };
  }
  const built = buildTelcoTables(customers, {
    seed,
    ...(options.damage === undefined ? {} : { damage: options.damage }),
  });

  const tableRows =
    target.kind === 'sqlite'
      ? loadIntoSqlite(target.path, built.tables, urlFlag)
      : target.kind === 'mysql'
        ? await loadIntoMysql(text, built.tables, { urlFlag })
        : await loadIntoPostgres(text, built.tables, { urlFlag });
  const readonlyUser = !readonly
    ? undefined
    : target.kind === 'mysql'
      ? await createReadonlyUser(text, readonly)
      : target.kind === 'postgres'
        ? await createReadonlyRole(text, readonly)
        : undefined;

  return {
    target: target.kind === 'sqlite' ? `sqlite:${target.path}` : target.redacted,
    kind: target.kind,
    database: target.kind === 'sqlite' ? target.path : target.database,
    ...(target.kind === 'postgres' ? { schema: target.schema } : {}),
    source,
    seed,
    trainCustomers: built.trainCustomers,
    testCustomers: built.testCustomers,
    tableRows,
    problems: built.problems,
    ...(readonlyUser ? { readonlyUser } : {}),
    durationMs: Math.round(performance.now() - started),
  };
}
