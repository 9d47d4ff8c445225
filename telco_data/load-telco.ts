/**
 * Builds telco_db end to end: customers (generated, or read from the IBM CSV), split and damaged
 * into eight tables, loaded into SQLite or MySQL/MariaDB, optionally with tally's read-only account.
 * The demo calls `loadTelco({ target: 'sqlite:.tally/telco.db' })` when the file is missing.
 */
import { performance } from 'node:perf_hooks';
import { buildTelcoTables, type TelcoRowCounts } from './build-telco-tables.js';
import { createReadonlyUser, type ReadonlyUser } from './create-readonly-user.js';
import { DEFAULT_ROWS, DEFAULT_SEED, generateCustomers } from './generate-customers.js';
import type { InjectedProblems, TelcoDamageOptions } from './inject-damage.js';
import { loadIntoMysql } from './load-into-mysql.js';
import { loadIntoSqlite } from './load-into-sqlite.js';
import { readTelcoCsv } from './parse-telco-csv.js';
import type { TelcoCustomer } from './telco-customer.js';
import { invalidArgument } from './telco-error.js';
import { parseTelcoTarget } from './telco-target.js';

export interface LoadTelcoOptions {
  /** `sqlite:<path>` (relative to `cwd`) or `mysql://user:password@host:port/telco_db`. */
  target: string;
  /** Read customers from the IBM CSV instead of generating them. */
  csvPath?: string;
  /** Seed of the generator, the 80/20 split and the damage. Default 42. */
  seed?: number;
  /** Customers to generate (not with `csvPath`). Default 7043. */
  rows?: number;
  /** Create this read-only account for tally (MySQL targets only). */
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
  kind: 'sqlite' | 'mysql';
  /** Absolute SQLite file path, or the MySQL database name. */
  database: string;
  source: { kind: 'generator'; seed: number; rows: number } | { kind: 'csv'; path: string; rows: number };
  seed: number;
  trainCustomers: number;
  testCustomers: number;
  /** Rows per table as counted in the database after loading. */
  tableRows: TelcoRowCounts;
  problems: InjectedProblems;
  readonlyUser?: ReadonlyUser;
  durationMs: number;
}

function checkWholeNumber(flag: string, value: number | undefined, minimum: number): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < minimum)) {
    throw invalidArgument(flag, `expected a whole number >= ${minimum}, got ${value}`);
  }
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
  const target = parseTelcoTarget(options.target, options.cwd);
  if (options.readonlyUser && target.kind !== 'mysql') {
    throw invalidArgument('--readonly-user', 'only applies to a mysql:// --target (SQLite has no users)');
  }
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
      ? loadIntoSqlite(target.path, built.tables)
      : await loadIntoMysql(options.target, built.tables);
  const readonlyUser =
    options.readonlyUser && target.kind === 'mysql'
      ? await createReadonlyUser(options.target, options.readonlyUser)
      : undefined;

  return {
    target: target.kind === 'sqlite' ? `sqlite:${target.path}` : target.redacted,
    kind: target.kind,
    database: target.kind === 'sqlite' ? target.path : target.database,
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
