/**
 * The masking battery's reference: the crm tables as the analyst may see them, built independently of tally's
 * rewrite as real tables of their own (a MariaDB database, a PostgreSQL database, a SQLite file). E-mail addresses
 * are replaced by their pseudonyms as `pseudonym()` works them out, phones are NULL and tenure is left out; the
 * tickets keep their topics. A statement that the policed database answers must get the same rows here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { adminConnection, createTestDatabase } from './mariadb.js';
import { CUSTOMERS, TICKETS } from './policy-databases.js';
import { pseudonym } from './policy-grants.js';
import { createTestDatabase as createPostgresDatabase, adminClient as postgresAdminClient } from './postgres.js';

export interface MaskedCopies {
  mysqlUrl: string;
  /** The MariaDB database of the copy: statements naming the crm schema are run here with this name instead. */
  mysqlSchema: string;
  postgresUrl: string;
  sqlitePath: string;
  drop(): Promise<void>;
}

const MASKED_CUSTOMERS = CUSTOMERS.map(([id, name, email, , segment]) => [id, name, pseudonym(email), null, segment]);
const MASKED_TICKETS = TICKETS.map(([id, email, topic]) => [id, pseudonym(email), topic]);

/** The views' types: a pseudonym is text, a redacted phone text that is always NULL. */
const SCHEMA: Record<'mysql' | 'postgres' | 'sqlite', string[]> = {
  mysql: [
    `CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(120) NOT NULL, email VARCHAR(16) NULL,
       phone VARCHAR(40) NULL, segment VARCHAR(20) NOT NULL)`,
    'CREATE TABLE tickets (id INT PRIMARY KEY, email VARCHAR(16) NULL, topic VARCHAR(20) NOT NULL)',
  ],
  postgres: [
    `CREATE TABLE customers (id integer PRIMARY KEY, name varchar(120) NOT NULL, email text, phone text,
       segment varchar(20) NOT NULL)`,
    'CREATE TABLE tickets (id integer PRIMARY KEY, email text, topic varchar(20) NOT NULL)',
  ],
  sqlite: [
    'CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(120) NOT NULL, email TEXT, phone TEXT, segment VARCHAR(20) NOT NULL)',
    'CREATE TABLE tickets (id INT PRIMARY KEY, email TEXT, topic VARCHAR(20) NOT NULL)',
  ],
};

export async function createMaskedCopies(): Promise<MaskedCopies> {
  const undo: Array<() => Promise<unknown>> = [];
  const drop = () => Promise.all(undo.map((step) => step())).then(() => undefined);
  try {
    const mysql = await createTestDatabase('tally_masked');
    undo.push(() => mysql.drop());
    await fillMysql(mysql.name);
    const postgres = await createPostgresDatabase('tally_masked');
    undo.push(() => postgres.drop());
    await fillPostgres(postgres.name);
    const folder = await mkdtemp(join(tmpdir(), 'tally-masked-'));
    undo.push(() => rm(folder, { recursive: true, force: true }));
    const sqlitePath = join(folder, 'masked.db');
    fillSqlite(sqlitePath);
    return { mysqlUrl: mysql.url, mysqlSchema: mysql.name, postgresUrl: postgres.url, sqlitePath, drop };
  } catch (error) {
    await drop().catch(() => {});
    throw error;
  }
}

async function fillMysql(database: string): Promise<void> {
  const admin = await adminConnection(database);
  try {
    for (const statement of SCHEMA.mysql) await admin.query(statement);
    await admin.query('INSERT INTO customers VALUES ?', [MASKED_CUSTOMERS]);
    await admin.query('INSERT INTO tickets VALUES ?', [MASKED_TICKETS]);
  } finally {
    await admin.end();
  }
}

async function fillPostgres(database: string): Promise<void> {
  const admin = await postgresAdminClient(database);
  try {
    for (const statement of SCHEMA.postgres) await admin.query(statement);
    for (const row of MASKED_CUSTOMERS) await admin.query('INSERT INTO customers VALUES ($1, $2, $3, $4, $5)', row);
    for (const row of MASKED_TICKETS) await admin.query('INSERT INTO tickets VALUES ($1, $2, $3)', row);
  } finally {
    await admin.end();
  }
}

function fillSqlite(path: string): void {
  const db = new BetterSqlite(path);
  try {
    db.exec(SCHEMA.sqlite.join(';\n'));
    const customer = db.prepare('INSERT INTO customers VALUES (?, ?, ?, ?, ?)');
    for (const row of MASKED_CUSTOMERS) customer.run(...row);
    const ticket = db.prepare('INSERT INTO tickets VALUES (?, ?, ?)');
    for (const row of MASKED_TICKETS) ticket.run(...row);
  } finally {
    db.close();
  }
}
