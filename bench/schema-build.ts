/**
 * The schema benchmark's databases: telco_db alone (8 tables) or telco_db among the 992 warehouse tables (1,000), in
 * a MariaDB database and a PostgreSQL database of their own and a SQLite file in a temporary folder, each dropped
 * after; and tally's connector on it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { createLogger } from '../src/base/logger.js';
import { MysqlDatabase } from '../src/db/mysql/mysql-database.js';
import { PostgresDatabase } from '../src/db/postgres/postgres-database.js';
import { SqliteDatabase } from '../src/db/sqlite/sqlite-database.js';
import type { StreamingDatabase } from '../src/db/streaming-database.js';
import { loadTelco } from '../telco_data/load-telco.js';
import { adminConnection, createScratchDatabase as createMysqlScratch } from './mysql-admin.js';
import { adminClient, createScratchDatabase as createPostgresScratch } from './postgres-admin.js';
import { createWarehouseTable, warehouseTables } from './schema-warehouse.js';

export type SchemaEngine = 'mysql' | 'postgres' | 'sqlite';

export interface BenchSchema {
  engine: SchemaEngine;
  tables: number;
  /** Making the tables and loading telco, ms. */
  buildMs: number;
  /** A new connector on it (`checkEveryMs` for its catalogue: 0 checks the fingerprint on every call). */
  open(checkEveryMs?: number): Promise<StreamingDatabase>;
  drop(): Promise<void>;
}

const LIMITS = { queryTimeoutMs: 60_000, extractTimeoutMs: 60_000, extractMaxRows: 1_000_000, extractMaxBytes: 1e9 };
const logger = createLogger({ level: 'silent' });
const CHUNK = 50;

export async function buildSchema(engine: SchemaEngine, withWarehouse: boolean): Promise<BenchSchema> {
  const started = performance.now();
  const statements = withWarehouse ? warehouseTables().flatMap((table) => createWarehouseTable(table, engine)) : [];
  const tables = withWarehouse ? 1000 : 8;
  if (engine === 'mysql') {
    const scratch = await createMysqlScratch('tally_schema_bench');
    await loadTelco({ url: scratch.url });
    const admin = await adminConnection(scratch.name);
    try {
      for (let start = 0; start < statements.length; start += CHUNK) {
        await admin.query(statements.slice(start, start + CHUNK).join(';\n'));
      }
      await admin.query('ANALYZE TABLE user_demographics, user_services, user_payments, user_churn');
    } finally {
      await admin.end();
    }
    return {
      engine,
      tables,
      buildMs: performance.now() - started,
      open: (checkEveryMs) =>
        MysqlDatabase.connect({
          name: 'bench',
          url: scratch.url,
          limits: LIMITS,
          logger,
          catalogue: catalogue(checkEveryMs),
        }),
      drop: () => scratch.drop(),
    };
  }
  if (engine === 'postgres') {
    const scratch = await createPostgresScratch('tally_schema_bench');
    await loadTelco({ url: scratch.url });
    const admin = await adminClient(scratch.name);
    try {
      for (let start = 0; start < statements.length; start += CHUNK) {
        await admin.query(statements.slice(start, start + CHUNK).join(';\n'));
      }
      await admin.query('ANALYZE');
    } finally {
      await admin.end();
    }
    return {
      engine,
      tables,
      buildMs: performance.now() - started,
      open: (checkEveryMs) =>
        PostgresDatabase.connect({
          name: 'bench',
          url: scratch.url,
          limits: LIMITS,
          logger,
          catalogue: catalogue(checkEveryMs),
        }),
      drop: () => scratch.drop(),
    };
  }
  const folder = await mkdtemp(join(tmpdir(), 'tally-schema-bench-'));
  const path = join(folder, 'bench.db');
  await loadTelco({ url: `sqlite:${path}` });
  const admin = new BetterSqlite(path);
  try {
    admin.transaction(() => {
      for (const statement of statements) admin.exec(statement);
    })();
  } finally {
    admin.close();
  }
  return {
    engine,
    tables,
    buildMs: performance.now() - started,
    open: (checkEveryMs) =>
      SqliteDatabase.open({ name: 'bench', path, limits: LIMITS, catalogue: catalogue(checkEveryMs) }),
    drop: () => rm(folder, { recursive: true, force: true }),
  };
}

const catalogue = (checkEveryMs: number | undefined) => (checkEveryMs === undefined ? {} : { checkEveryMs });
