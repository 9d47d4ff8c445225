/**
 * Where telco_db goes: `sqlite:<path>` (an embedded file, relative to the working directory),
 * `mysql://user:pass@host:port/telco_db` (MySQL or MariaDB; `mariadb://` works too) or
 * `postgres://user:pass@host:port/telco_db?schema=public` (`postgresql://` works too).
 */
import { resolve } from 'node:path';
import { invalidArgument } from './telco-error.js';

export const DEFAULT_DATABASE = 'telco_db';
const DATABASE_NAME = /^[A-Za-z0-9_]{1,64}$/;
/** PostgreSQL reserves schema names that start with `pg_`. */
const SCHEMA_NAME = /^(?!pg_)[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** What the server URLs have in common. */
interface ServerTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** The URL with the password replaced by `***`, fit for logs and reports. */
  redacted: string;
}

export type TelcoTarget =
  | {
      kind: 'sqlite';
      /** Absolute path of the database file. */
      path: string;
    }
  | ({ kind: 'mysql' } & ServerTarget)
  | ({
      kind: 'postgres';
      /** From `?schema=`; default `public`. */
      schema: string;
      /** The URL to connect with: the given one without `schema`, with user and database filled in. */
      url: string;
    } & ServerTarget);

/** Replaces the password of a URL with `***`. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
}

const FORMS =
  "'sqlite:<path>', 'mysql://user:password@host:port/telco_db' or 'postgres://user:password@host:port/telco_db'";

/**
 * Parses the location given with `--url` (or its older name `--target`, which `flag` names in the
 * errors); throws a `TelcoError` naming the flag when it is none of the three forms.
 */
export function parseTelcoTarget(target: string, cwd = process.cwd(), flag = '--target'): TelcoTarget {
  if (target.startsWith('sqlite:')) {
    const path = target.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw invalidArgument(flag, "sqlite: needs a file path, e.g. 'sqlite:.tally/telco.db'");
    return { kind: 'sqlite', path: resolve(cwd, path) };
  }
  const scheme = /^(mysql|mariadb|postgres|postgresql):\/\//.exec(target)?.[1];
  if (scheme === undefined) throw invalidArgument(flag, `'${redactUrl(target)}' is none of ${FORMS}`);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw invalidArgument(flag, `'${redactUrl(target)}' is not a valid URL`);
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || DEFAULT_DATABASE;
  if (!DATABASE_NAME.test(database)) {
    throw invalidArgument(flag, `database name '${database}' must be letters, digits and underscores`);
  }
  const postgres = scheme.startsWith('postgres');
  const server: ServerTarget = {
    host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: url.port === '' ? (postgres ? 5432 : 3306) : Number(url.port),
    user: decodeURIComponent(url.username) || (postgres ? 'postgres' : 'root'),
    password: decodeURIComponent(url.password),
    database,
    redacted: redactUrl(target),
  };
  if (!postgres) return { kind: 'mysql', ...server };
  const schema = url.searchParams.get('schema') ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw invalidArgument(
      flag,
      `schema name '${schema}' must be letters, digits and underscores, not starting with pg_`,
    );
  }
  // The rest of the query (sslmode, application_name, ...) is for the driver, as in any libpq URL.
  url.searchParams.delete('schema');
  url.pathname = `/${database}`;
  if (url.username === '') url.username = server.user;
  return { kind: 'postgres', ...server, schema, url: url.toString() };
}
