/**
 * One configured database as the logins of its view profiles (`tally policy apply`): a person's statements run as
 * the login of the profile their grants give, against that profile's views, so the server's own privileges hold
 * whatever the statement nests. A login's connections open on first use and stay for the process.
 */
import type { DatabaseLimitSettings, DatabaseSettings } from '../base/config-types.js';
import { SqlRejectedError } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import { openDatabase } from '../db/open-database.js';
import type { Database } from '../ports/database.js';
import type { DatabaseAccess } from './access.js';
import { profileUrl } from './profile-login.js';
import { type Catalog, viewProfile } from './view-profile.js';

export interface ProfileDatabasesOptions {
  settings: DatabaseSettings;
  limits: DatabaseLimitSettings;
  logger: Logger;
  /** TALLY_PSEUDONYM_KEY, from which the logins' passwords derive. */
  secret: string;
  /** The tables and columns as the start-up check read them: profiles are worked out against these. */
  catalog: Catalog;
  /** The profiles the check found made. */
  applied: ReadonlySet<string>;
  /** Wraps each login's database as the configured ones are (metrics). */
  wrap?: (database: Database) => Database;
}

export class ProfileDatabases {
  private readonly opened = new Map<string, Promise<Database>>();

  constructor(private readonly options: ProfileDatabasesOptions) {}

  /** The database as the login of `access`'s profile; refused when `apply` has not made that profile. */
  async forAccess(access: DatabaseAccess): Promise<{ database: Database; login: string }> {
    const { settings, catalog, applied } = this.options;
    const profile = viewProfile(settings.name, access, catalog);
    if (!profile || !applied.has(profile.name)) {
      throw new SqlRejectedError(
        'no database login for this access',
        `The database has no login for what the access policy grants you in ${settings.name}: ask the people who run tally to run tally policy apply.`,
      );
    }
    let database = this.opened.get(profile.name);
    if (!database) {
      database = this.open(profile.name);
      this.opened.set(profile.name, database);
      database.catch(() => this.opened.delete(profile.name));
    }
    return { database: await database, login: profile.name };
  }

  private async open(login: string): Promise<Database> {
    const { settings, limits, logger, secret, wrap } = this.options;
    const database = await openDatabase(
      {
        name: settings.name,
        url: profileUrl(settings.url, login, secret),
        ...(settings.schemas ? { schemas: settings.schemas } : {}),
      },
      limits,
      logger.child({ login }),
    );
    return wrap ? wrap(database) : database;
  }

  async close(): Promise<void> {
    const opened = [...this.opened.values()];
    this.opened.clear();
    await Promise.all(opened.map((database) => database.then((open) => open.close()).catch(() => {})));
  }
}
