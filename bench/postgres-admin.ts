/**
 * The PostgreSQL admin role that benchmarks and tests use to make their own databases and roles:
 * TALLY_TEST_POSTGRES_URL, the URL scripts/ensure-postgres.sh saved, or postgres on localhost.
 * (test/support/postgres.ts re-exports these; product-side tooling never imports from test/.)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const SAVED_URL = join(import.meta.dirname, '..', '.tally', 'test-postgres-url');

/** Admin URL: TALLY_TEST_POSTGRES_URL, the one setup saved, or postgres (trust auth) on localhost. */
export function postgresAdminUrl(): string {
  if (process.env.TALLY_TEST_POSTGRES_URL) return process.env.TALLY_TEST_POSTGRES_URL;
  if (existsSync(SAVED_URL)) return readFileSync(SAVED_URL, 'utf8').trim();
  return 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** The admin URL pointed at another database (PostgreSQL connects to one database at a time). */
export function postgresAdminUrlFor(database: string): string {
  const url = new URL(postgresAdminUrl());
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

const redacted = (url: string): string => url.replace(/:[^:@/]*@/, ':***@');

/** A connected client for the admin role, on `database` or the admin URL's own; `end()` it when done. */
export async function adminClient(database?: string): Promise<pg.Client> {
  const url = database === undefined ? postgresAdminUrl() : postgresAdminUrlFor(database);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `No PostgreSQL server lets the admin in at ${redacted(url)} (${String(error)}). ` +
        `Run 'npm run test:all', which starts one, or set TALLY_TEST_POSTGRES_URL.`,
    );
  }
  return client;
}

/** A database of its own on the admin role's server, for one benchmark or test run; `drop` removes it. */
export interface ScratchDatabase {
  name: string;
  /** Admin URL on this database. */
  url: string;
  drop(): Promise<void>;
}

/** Creates `<prefix>_<random hex>`; `prefix` must be a plain lower-case identifier. */
export async function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix))
    throw new Error(`scratch database prefix '${prefix}' is not a plain name`);
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = await adminClient();
  try {
    // template0: a clean UTF-8 database whatever was added to template1.
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)} ENCODING 'UTF8' TEMPLATE template0`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: postgresAdminUrlFor(name),
    async drop() {
      const client = await adminClient();
      try {
        // FORCE ends sessions a failed test left open, which would otherwise block the drop.
        await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
