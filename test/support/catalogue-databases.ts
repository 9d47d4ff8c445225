/**
 * A small crm schema for the catalogue tests, in a real MariaDB database, a real PostgreSQL database and a real
 * SQLite file: customers (commented, with an e-mail, a phone and a tenure), tickets (a foreign key to customers),
 * salaries (never granted) and `extra` filler tables. `admin` changes the schema from outside tally.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { adminConnection, createTestDatabase } from './mariadb.js';
import { createTestDatabase as createPostgresDatabase, adminClient as postgresAdminClient } from './postgres.js';

export type CatalogueDialect = 'mysql' | 'postgres' | 'sqlite';

export interface CatalogueDatabase {
  /** A mysql:// or postgres:// admin URL, or a file path. */
  location: string;
  /** Runs SQL with full rights, outside tally. */
  admin(sql: string): Promise<void>;
  drop(): Promise<void>;
}

/** CREATE statements of the crm tables and `extra` fillers in the dialect. */
export function catalogueSchema(dialect: CatalogueDialect, extra: number): string[] {
  const text = dialect === 'mysql' ? 'VARCHAR(80)' : 'TEXT';
  const comment = (value: string) => (dialect === 'mysql' ? ` COMMENT '${value}'` : '');
  const statements = [
    `CREATE TABLE customers (
  id INTEGER PRIMARY KEY, -- the customer
  name ${text} NOT NULL${comment('full name')}, -- full name
  email ${text}${comment('where invoices go')}, -- where invoices go
  phone ${text},
  segment ${text},
  tenure INTEGER${comment('months as a customer')} -- months as a customer
)${comment('one row per customer')}`,
    `CREATE TABLE tickets (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER REFERENCES customers(id),
  topic ${text}
)`,
    `CREATE TABLE salaries (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), salary_amount INTEGER)`,
    ...Array.from(
      { length: extra },
      (_, index) => `CREATE TABLE extra_${String(index).padStart(3, '0')} (id INTEGER PRIMARY KEY, value ${text})`,
    ),
  ];
  if (dialect === 'sqlite')
    statements[0] = (statements[0] as string).replace('customers (', 'customers ( -- one row per customer');
  if (dialect === 'postgres') {
    statements.push(
      `COMMENT ON TABLE customers IS 'one row per customer'`,
      `COMMENT ON COLUMN customers.email IS 'where invoices go'`,
      `COMMENT ON COLUMN customers.tenure IS 'months as a customer'`,
    );
  }
  return statements.map((statement) => (dialect === 'sqlite' ? statement : statement.replace(/ -- [^\n]*/g, '')));
}

export async function catalogueDatabase(dialect: CatalogueDialect, extra: number): Promise<CatalogueDatabase> {
  const database =
    dialect === 'mysql'
      ? await mysqlDatabase()
      : dialect === 'postgres'
        ? await postgresDatabase()
        : await sqliteFile();
  for (const statement of catalogueSchema(dialect, extra)) await database.admin(statement);
  await database.admin(
    "INSERT INTO customers (id, name, email, segment, tenure) VALUES (1, 'Ann', 'ann@example.com', 'retail', 3)",
  );
  return database;
}

async function mysqlDatabase(): Promise<CatalogueDatabase> {
  const database = await createTestDatabase('tally_catalogue');
  const admin = await adminConnection(database.name);
  return {
    location: database.url,
    async admin(sql) {
      await admin.query(sql);
    },
    async drop() {
      await admin.end();
      await database.drop();
    },
  };
}

async function postgresDatabase(): Promise<CatalogueDatabase> {
  const database = await createPostgresDatabase('tally_catalogue');
  const admin = await postgresAdminClient(database.name);
  return {
    location: database.url,
    async admin(sql) {
      await admin.query(sql);
    },
    async drop() {
      await admin.end();
      await database.drop();
    },
  };
}

async function sqliteFile(): Promise<CatalogueDatabase> {
  const folder = await mkdtemp(join(tmpdir(), 'tally-catalogue-'));
  const path = join(folder, 'crm.db');
  const admin = new BetterSqlite(path);
  admin.pragma('journal_mode = DELETE');
  return {
    location: path,
    async admin(sql) {
      admin.exec(sql);
    },
    async drop() {
      admin.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
