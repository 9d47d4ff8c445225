/**
 * Opens the loader's MySQL/MariaDB connection and turns driver failures into one-line `TelcoError`s
 * that name the flag to fix. Error texts never include the SQL, which may hold a password.
 */
import mysql from 'mysql2/promise';
import { connectionError, safeCause } from './connection-error.js';
import type { TelcoError } from './telco-error.js';
import type { TelcoTarget } from './telco-target.js';

export type MysqlTarget = Extract<TelcoTarget, { kind: 'mysql' }>;

/** How long to wait for the server before calling it unreachable. */
const CONNECT_TIMEOUT_MS = 5000;

const LOGIN_REFUSED = new Set(['ER_ACCESS_DENIED_ERROR', 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR']);

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
  return connectionError(safeCause(error), {
    server: 'MySQL/MariaDB',
    target,
    flag,
    doing,
    urlFlag,
    loginRefused: (code) => LOGIN_REFUSED.has(code),
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
