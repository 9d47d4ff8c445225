/**
 * Where telco_db goes: `sqlite:<path>` (an embedded file, relative to the working directory) or
 * `mysql://user:pass@host:port/telco_db` (MySQL or MariaDB; `mariadb://` works too).
 */
import { resolve } from 'node:path';
import { invalidArgument } from './telco-error.js';

export const DEFAULT_DATABASE = 'telco_db';
const DATABASE_NAME = /^[A-Za-z0-9_]{1,64}$/;

export type TelcoTarget =
  | {
      kind: 'sqlite';
      /** Absolute path of the database file. */
      path: string;
    }
  | {
      kind: 'mysql';
      host: string;
      port: number;
      user: string;
      password: string;
      database: string;
      /** The URL with the password replaced by `***`, fit for logs and reports. */
      redacted: string;
    };

/** Replaces the password of a URL with `***`. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
}

/** Parses `--target`; throws a `TelcoError` naming `--target` when it is not one of the two forms. */
export function parseTelcoTarget(target: string, cwd = process.cwd()): TelcoTarget {
  if (target.startsWith('sqlite:')) {
    const path = target.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw invalidArgument('--target', "sqlite: needs a file path, e.g. 'sqlite:.tally/telco.db'");
    return { kind: 'sqlite', path: resolve(cwd, path) };
  }
  if (!/^(mysql|mariadb):\/\//.test(target)) {
    throw invalidArgument(
      '--target',
      `'${redactUrl(target)}' is neither 'sqlite:<path>' nor 'mysql://user:password@host:port/telco_db'`,
    );
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw invalidArgument('--target', `'${redactUrl(target)}' is not a valid URL`);
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || DEFAULT_DATABASE;
  if (!DATABASE_NAME.test(database)) {
    throw invalidArgument('--target', `database name '${database}' must be letters, digits and underscores`);
  }
  const port = url.port === '' ? 3306 : Number(url.port);
  return {
    kind: 'mysql',
    host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port,
    user: decodeURIComponent(url.username) || 'root',
    password: decodeURIComponent(url.password),
    database,
    redacted: redactUrl(target),
  };
}
