/**
 * Opens the loader's MySQL/MariaDB connection and turns driver failures into one-line `TelcoError`s
 * that name the flag to fix. Error texts never include the SQL, which may hold a password.
 */
import mysql from 'mysql2/promise';
import { TelcoError } from './telco-error.js';
import type { TelcoTarget } from './telco-target.js';

export type MysqlTarget = Extract<TelcoTarget, { kind: 'mysql' }>;

/** How long to wait for the server before calling it unreachable. */
const CONNECT_TIMEOUT_MS = 5000;

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** A driver error reduced to code and message: mysql2 errors carry `sql`, which may hold a password. */
function safeCause(error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return Object.assign(new Error(message), typeof code === 'string' ? { code } : {});
}

/**
 * Translates a driver error; `flag` is the option the user should look at, `doing` what failed, and
 * `urlFlag` the option that gave the URL (`--url`, or its older name `--target`).
 */
export function mysqlError(
  error: unknown,
  target: MysqlTarget,
  flag: string,
  doing: string,
  urlFlag = '--target',
): TelcoError {
  const cause = safeCause(error);
  const code = (cause as { code?: string }).code ?? 'unknown';
  const where = `${target.host}:${target.port}`;
  if (UNREACHABLE.has(code)) {
    return new TelcoError(
      'TELCO_DATABASE_UNREACHABLE',
      `${urlFlag}: no MySQL/MariaDB server answers at ${where} (${code}); start one or fix the host and port in ${urlFlag}`,
      { details: { host: target.host, port: target.port }, cause },
    );
  }
  if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR') {
    return new TelcoError(
      'TELCO_DATABASE_REFUSED',
      `${urlFlag}: ${where} refused the login of user '${target.user}'; fix the user and password in ${urlFlag}`,
      { details: { host: target.host, port: target.port, user: target.user }, cause },
    );
  }
  return new TelcoError('TELCO_DATABASE_REFUSED', `${flag}: ${doing} failed on ${where}: ${cause.message} (${code})`, {
    details: { host: target.host, port: target.port, code },
    cause,
  });
}

/** Connects without selecting a database (it may not exist yet). */
export async function connectMysql(target: MysqlTarget, urlFlag = '--target'): Promise<mysql.Connection> {
  try {
    return await mysql.createConnection({
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      connectTimeout: CONNECT_TIMEOUT_MS,
      charset: 'utf8mb4',
    });
  } catch (error) {
    throw mysqlError(error, target, urlFlag, 'connecting', urlFlag);
  }
}

/** Backtick-quotes an identifier (the names used here are checked to be plain words). */
export const quoteMysql = (identifier: string): string => `\`${identifier.replaceAll('`', '``')}\``;
