/**
 * The MySQL/MariaDB account tally connects as: SELECT on telco_db and nothing else, so even a query
 * that slipped past tally's SQL guard cannot change or drop the data. The password is passed as a
 * bound value, never interpolated into logs or error messages.
 */
import { connectMysql, mysqlError, quoteMysql } from './mysql-connection.js';
import { invalidArgument } from './telco-error.js';
import { parseTelcoTarget } from './telco-target.js';

export interface ReadonlyUserOptions {
  /** Account name, e.g. `tally_ro`: letters, digits and underscores, at most 32 characters. */
  name: string;
  password: string;
  /** Database to grant SELECT on. Default: the database named in the URL. */
  database?: string;
  /** The option that gave the URL, for error messages: `--url` or `--target` (default). */
  urlFlag?: string;
}

export interface ReadonlyUser {
  name: string;
  /** The account exists for each of these hosts. */
  hosts: string[];
  database: string;
}

/**
 * Both hosts: a client on the server's own machine is matched against `'localhost'` before `'%'`,
 * and MariaDB's anonymous `''@'localhost'` would otherwise win over `name@'%'`.
 */
const HOSTS = ['%', 'localhost'];
const USER_NAME = /^[A-Za-z0-9_]{1,32}$/;

/** `ER_NONEXISTING_GRANT`: REVOKE on an account that has no grant there yet. */
const NO_SUCH_GRANT = 1141;

/**
 * Creates the account (or resets its password on re-runs) for both hosts and leaves it with exactly
 * SELECT on `<database>.*`: grants it had on that database before are revoked first. Grants on
 * other databases are left alone. `url` is an admin URL (`mysql://root@host:port/telco_db`).
 */
export async function createReadonlyUser(url: string, options: ReadonlyUserOptions): Promise<ReadonlyUser> {
  const urlFlag = options.urlFlag ?? '--target';
  const target = parseTelcoTarget(url, undefined, urlFlag);
  if (target.kind !== 'mysql') throw invalidArgument('--readonly-user', `only applies to a mysql:// ${urlFlag}`);
  if (!USER_NAME.test(options.name)) {
    throw invalidArgument('--readonly-user', `'${options.name}' must be 1-32 letters, digits or underscores`);
  }
  if (options.name === target.user) {
    throw invalidArgument('--readonly-user', `must differ from the loading user '${target.user}' in ${urlFlag}`);
  }
  if (options.password === '') throw invalidArgument('--readonly-password', 'must not be empty');
  if (options.database !== undefined && !/^[A-Za-z0-9_]{1,64}$/.test(options.database)) {
    throw invalidArgument(urlFlag, `database name '${options.database}' must be letters, digits and underscores`);
  }
  const database = quoteMysql(options.database ?? target.database);
  const connection = await connectMysql(target, urlFlag);
  try {
    for (const host of HOSTS) {
      const account = [options.name, host];
      await connection.query('CREATE USER IF NOT EXISTS ?@? IDENTIFIED BY ?', [...account, options.password]);
      await connection.query('ALTER USER ?@? IDENTIFIED BY ?', [...account, options.password]);
      // Two statements: MySQL has no `REVOKE ALL, GRANT OPTION ON db.*` form.
      for (const privileges of ['ALL PRIVILEGES', 'GRANT OPTION']) {
        try {
          await connection.query(`REVOKE ${privileges} ON ${database}.* FROM ?@?`, account);
        } catch (error) {
          if ((error as { errno?: number }).errno !== NO_SUCH_GRANT) throw error;
        }
      }
      await connection.query(`GRANT SELECT ON ${database}.* TO ?@?`, account);
    }
  } catch (error) {
    throw mysqlError(error, target, '--readonly-user', `creating the read-only user '${options.name}'`, urlFlag);
  } finally {
    await connection.end();
  }
  return { name: options.name, hosts: HOSTS, database: options.database ?? target.database };
}
