/**
 * Opens the loader's PostgreSQL connections and turns driver failures into one-line `TelcoError`s
 * that name the flag to fix. Error texts never include the SQL, which may hold a password.
 */
import pg from 'pg';
import { connectionError, safeCause } from './connection-error.js';
import type { TelcoError } from './telco-error.js';
import type { TelcoTarget } from './telco-target.js';

export type PostgresTarget = Extract<TelcoTarget, { kind: 'postgres' }>;

/** How long to wait for the server before calling it unreachable. */
const CONNECT_TIMEOUT_MS = 5000;

/** SQLSTATEs of a refused login: invalid_authorization_specification (no such role, pg_hba), invalid_password. */
const LOGIN_REFUSED = new Set(['28000', '28P01']);
/** SQLSTATE invalid_catalog_name: the database does not exist. */
export const NO_SUCH_DATABASE = '3D000';

/**
 * Translates a driver error; `flag` is the option the user should look at, `doing` what failed, and
 * `urlFlag` the option that gave the URL (`--url`, or its older name `--target`).
 */
export function postgresError(
  error: unknown,
  target: PostgresTarget,
  flag: string,
  doing: string,
  urlFlag = '--target',
): TelcoError {
  const message = error instanceof Error ? error.message : String(error);
  // pg gives its own connect timeout no code.
  const code = (error as { code?: unknown }).code ?? (/connection timeout/i.test(message) ? 'ETIMEDOUT' : undefined);
  return connectionError(safeCause(error, code), {
    server: 'PostgreSQL',
    target,
    flag,
    doing,
    urlFlag,
    loginRefused: (sqlState) => LOGIN_REFUSED.has(sqlState),
    quoteRefusal: true,
  });
}

/** The target's URL pointed at `database` (PostgreSQL connects to one database at a time). */
export function postgresUrl(target: PostgresTarget, database: string): string {
  const url = new URL(target.url);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * Connects to `database` (default the target's). A missing database is a `TelcoError` whose
 * `details.code` is {@link NO_SUCH_DATABASE}, for the loader to create it.
 */
export async function connectPostgres(
  target: PostgresTarget,
  database = target.database,
  urlFlag = '--target',
): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: postgresUrl(target, database),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // A server that goes away between queries emits 'error' on the client, which would end the process;
  // the next query rejects with the same failure and is reported like any other.
  client.on('error', () => {});
  try {
    await client.connect();
    return client;
  } catch (error) {
    throw postgresError(error, target, urlFlag, 'connecting', urlFlag);
  }
}

/** Double-quotes an identifier, keeping its case (the names used here are checked to be plain words). */
export const quotePostgres = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;
