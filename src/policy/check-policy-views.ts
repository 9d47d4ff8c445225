/**
 * The start-up check of what `tally policy apply` made (also `tally policy check`): for each configured
 * MySQL/MariaDB or PostgreSQL database with grants, either apply was never run there (tally says once that only
 * its own rewrite masks, and goes on), or every view profile the policy can give must exist as a login whose views
 * have the granted columns (a profile's name is a digest of them) and which can read neither the base tables nor
 * the pseudonym key. Anything
 * missing or outdated stops start-up (fail closed), naming the command that fixes it.
 */
import type { DatabaseSettings } from '../base/config-types.js';
import { openPlainConnection, type PlainConnection } from '../db/plain-connection.js';
import { hasLogins, readDatabaseCatalog } from './database-catalog.js';
import { quoteName } from './masked-view.js';
import type { Policy } from './policy-file.js';
import { profileUrl } from './profile-login.js';
import { appliedProfilesQuery, POLICY_SCHEMA } from './profile-sql.js';
import { type Catalog, possibleProfiles, type ViewProfile } from './view-profile.js';

export type ViewsState =
  | { state: 'views'; catalog: Catalog; profiles: ViewProfile[] }
  /** `apply` never ran for this database: `reason` says what the check found. */
  | { state: 'rewrite only'; reason: string }
  | { state: 'problems'; problems: string[] };

export async function checkPolicyViews(
  settings: DatabaseSettings,
  policy: Policy,
  secret: string | undefined,
): Promise<ViewsState> {
  if (!hasLogins(settings)) return { state: 'rewrite only', reason: 'SQLite has no logins' };
  if (!policy.grants.some((grant) => grant.database === settings.name)) {
    return { state: 'views', catalog: emptyCatalog, profiles: [] };
  }
  const { dialect, catalog } = await readDatabaseCatalog(settings);
  const runtime = await openPlainConnection(settings.url);
  let applied: string[];
  try {
    applied = (await runtime.query(appliedProfilesQuery(dialect, settings.name, catalog.location))).map((row) =>
      String(row.profile),
    );
  } catch (error) {
    return { state: 'rewrite only', reason: `${POLICY_SCHEMA}.profiles cannot be read: ${(error as Error).message}` };
  } finally {
    await runtime.close().catch(() => {});
  }
  if (applied.length === 0) return { state: 'rewrite only', reason: `${POLICY_SCHEMA}.profiles lists no profile` };
  if (!secret) return { state: 'problems', problems: ['TALLY_PSEUDONYM_KEY is not set: the logins cannot be reached'] };
  const profiles = possibleProfiles(policy, settings.name, catalog);
  const problems: string[] = [];
  for (const profile of profiles) {
    if (!applied.includes(profile.name)) {
      problems.push(`${profile.name} (${describe(profile)}) was not made: the policy or the tables changed since`);
      continue;
    }
    problems.push(...(await loginProblems(settings, profile, catalog, secret)));
  }
  return problems.length > 0 ? { state: 'problems', problems } : { state: 'views', catalog, profiles };
}

const emptyCatalog: Catalog = { schema: '', location: '', tables: new Map(), others: new Map() };

function describe(profile: ViewProfile): string {
  return [...profile.tables.map(({ table }) => table), ...profile.others].join(', ');
}

/** What is wrong with the login of `profile`: its views' columns, or what it can read that it must not. */
async function loginProblems(
  settings: DatabaseSettings,
  profile: ViewProfile,
  catalog: Catalog,
  secret: string,
): Promise<string[]> {
  let login: PlainConnection;
  try {
    login = await openPlainConnection(profileUrl(settings.url, profile.name, secret));
  } catch (error) {
    return [`${profile.name} cannot log in: ${(error as Error).message}`];
  }
  const dialect = login.dialect;
  const name = (text: string) => quoteName(dialect, text);
  const problems: string[] = [];
  const columnsOf = async (relation: string) =>
    login.query(`SELECT * FROM ${relation} WHERE 1 = 0`).then(
      () => undefined,
      (error: Error) => error.message,
    );
  try {
    for (const { table, columns } of profile.tables) {
      const view = `${name(profile.name)}.${name(table)}`;
      const failed = await columnsOf(
        `(SELECT ${columns.map((column) => name(column.name)).join(', ')} FROM ${view}) v`,
      );
      if (failed) problems.push(`${profile.name}.${table} does not have the granted columns: ${failed}`);
    }
    const base = [...catalog.tables.keys()][0];
    const forbidden = [
      ...(base ? [`${name(catalog.schema)}.${name(base)}`] : []),
      `${name(POLICY_SCHEMA)}.${name('pseudonym_keys')}`,
    ];
    for (const relation of forbidden) {
      if ((await columnsOf(relation)) === undefined) problems.push(`${profile.name} can read ${relation}`);
    }
  } finally {
    await login.close().catch(() => {});
  }
  return problems;
}
