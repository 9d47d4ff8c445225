/**
 * Turns customers into the eight telco_db tables: a seeded 80/20 split into train tables and `_new`
 * test tables, each customer's columns spread over four tables keyed by customerID, then damage
 * injected into the train tables only (see inject-damage.ts), so "are the tables consistent?" has a
 * real, checkable answer while the test part stays clean.
 */
import { DEFAULT_SEED } from './generate-customers.js';
import { type InjectedProblems, injectDamage, type TelcoDamageOptions } from './inject-damage.js';
import { createRandom } from './random.js';
import type { TelcoCustomer } from './telco-customer.js';
import { TELCO_TABLES, type TelcoRow, type TelcoTableName, type TelcoTableSpec } from './telco-tables.js';

/** Rows per table as counted in the database after loading. */
export type TelcoRowCounts = Record<string, number>;

export interface TelcoTableData {
  spec: TelcoTableSpec;
  /** Sorted by customerID. */
  rows: TelcoRow[];
}

/** What {@link buildTelcoTables} returns: the rows to load and what was done to them. */
export interface TelcoTables {
  /** The eight tables in {@link TELCO_TABLES} order. */
  tables: TelcoTableData[];
  /** Real customers in the train part (before damage) and in the test part. */
  trainCustomers: number;
  testCustomers: number;
  /** The damage injected into the train tables, with every affected customerID. */
  problems: InjectedProblems;
}

export interface BuildTelcoTablesOptions {
  /** Seed of the split and the damage. Default 42. */
  seed?: number;
  /** Share of customers in the train tables. Default 0.8. */
  trainShare?: number;
  /** How much damage to inject; `false` for none. Defaults in {@link TelcoDamageOptions}. */
  damage?: TelcoDamageOptions | false;
}

function project(customer: TelcoCustomer, spec: TelcoTableSpec): TelcoRow {
  const row: TelcoRow = {};
  for (const column of spec.columns) row[column.name] = customer[column.name];
  return row;
}

const byCustomerId = (left: TelcoRow, right: TelcoRow): number =>
  String(left.customerID) < String(right.customerID) ? -1 : String(left.customerID) > String(right.customerID) ? 1 : 0;

/** Splits, projects and damages `customers` into the eight telco_db tables; deterministic per seed. */
export function buildTelcoTables(
  customers: readonly TelcoCustomer[],
  options: BuildTelcoTablesOptions = {},
): TelcoTables {
  const seed = options.seed ?? DEFAULT_SEED;
  const trainShare = options.trainShare ?? 0.8;
  if (!(trainShare >= 0 && trainShare <= 1)) throw new RangeError(`trainShare must be within 0..1, got ${trainShare}`);
  const shuffled = createRandom(seed, 'split').shuffle(customers);
  const trainCount = Math.round(customers.length * trainShare);
  const parts = { train: shuffled.slice(0, trainCount), test: shuffled.slice(trainCount) };

  const rows = new Map<TelcoTableName, TelcoRow[]>(
    TELCO_TABLES.map((spec) => [spec.name, parts[spec.part].map((customer) => project(customer, spec))]),
  );
  const problems = injectDamage(rows, {
    random: createRandom(seed, 'damage'),
    takenIds: customers.map((customer) => customer.customerID),
    damage: options.damage ?? {},
  });
  return {
    tables: TELCO_TABLES.map((spec) => ({ spec, rows: (rows.get(spec.name) ?? []).sort(byCustomerId) })),
    trainCustomers: parts.train.length,
    testCustomers: parts.test.length,
    problems,
  };
}
