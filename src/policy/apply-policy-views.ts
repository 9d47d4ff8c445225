/**
 * `tally policy apply`: makes the database the wall. For one configured MySQL/MariaDB or PostgreSQL database, every
 * view profile the policy can give (`view-profile.ts`) gets a schema of views and a login (`profile-sql.ts`),
 * profiles no longer given are removed, and the pseudonym key is stored where only the views' owner reads it. Run
 * again after the policy, the tables or TALLY_PSEUDONYM_KEY change: each profile is made anew, so it is idempotent.
 */
import type { DatabaseSettings } from '../base/config-types.js';
import { isPostgresUrl } from '../db/open-database.js';
import { openPlainConnection } from '../db/plain-connection.js';
import { readDatabaseCatalog } from './database-catalog.js';
import { pseudonymKey } from './masked-view.js';
import type { Policy } from './policy-file.js';
import { profilePassword } from './profile-login.js';
import {
  appliedProfilesQuery,
  dropProfileStatements,
  POLICY_SCHEMA,
  policySchemaStatements,
  profileStatements,
} from './profile-sql.js';
import { possibleProfiles } from './view-profile.js';

export interface ApplyOptions {
  settings: DatabaseSettings;
  policy: Policy;
  /** TALLY_PSEUDONYM_KEY: the key's source and the logins' passwords'. */
  secret: string;
  /** An account that may create schemas, views and logins on the same server. */
  adminUrl: string;
  dryRun: boolean;
  print: (line: string) => void;
  now?: () => Date;
}

export interface ApplyResult {
  profiles: string[];
  removed: string[];
}

export async function applyPolicyViews(options: ApplyOptions): Promise<ApplyResult> {
  const { settings, policy, secret, dryRun, print } = options;
  const { dialect, catalog, runtime, serverDatabase } = await readDatabaseCatalog(settings);
  const profiles = possibleProfiles(policy, settings.name, catalog);
  const admin = await openPlainConnection(adminUrlFor(options.adminUrl, serverDatabase));
  try {
    const before = await admin.query(appliedProfilesQuery(dialect, settings.name, catalog.location)).then(
      (rows) => rows.map((row) => String(row.profile)),
      () => [] as string[],
    );
    const removed = before.filter((name) => !profiles.some((profile) => profile.name === name));
    const key = pseudonymKey(secret, settings.name);
    const appliedAt = (options.now?.() ?? new Date()).toISOString();
    const statements = [
      ...policySchemaStatements(dialect, { location: catalog.location, key, runtime }),
      ...profiles.flatMap((profile) =>
        profileStatements(dialect, profile, {
          location: catalog.location,
          password: profilePassword(secret, profile.name),
          appliedAt,
          ...(serverDatabase ? { serverDatabase } : {}),
        }),
      ),
      ...removed.flatMap((name) => dropProfileStatements(dialect, name)),
    ];
    const secrets = [key, ...profiles.map((profile) => profilePassword(secret, profile.name))];
    for (const statement of statements) {
      if (dryRun) print(`${secrets.reduce((text, value) => text.replaceAll(value, '…'), statement)};`);
      else await admin.query(statement);
    }
    const verb = dryRun ? 'would make' : 'made';
    print(
      `${settings.name}: ${verb} ${profiles.length} view profile${profiles.length === 1 ? '' : 's'} in ${POLICY_SCHEMA}` +
        (removed.length > 0 ? `, ${dryRun ? 'would remove' : 'removed'} ${removed.join(', ')}` : ''),
    );
    for (const profile of profiles) {
      const tables = profile.tables.map(({ table, columns }) => `${table}(${columns.length})`);
      print(`  ${profile.name}: ${[...tables, ...profile.others].join(', ')}`);
    }
    return { profiles: profiles.map((profile) => profile.name), removed };
  } finally {
    await admin.close().catch(() => {});
  }
}

/** PostgreSQL keeps schemas per database: the administrator's URL is pointed at tally's database. */
function adminUrlFor(adminUrl: string, serverDatabase: string | undefined): string {
  if (!isPostgresUrl(adminUrl) || serverDatabase === undefined) return adminUrl;
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(serverDatabase)}`;
  return url.toString();
}
