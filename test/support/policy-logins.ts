/**
 * `tally policy apply` for a test: the policy-grants.ts policy applied to one database (MariaDB or PostgreSQL), the
 * logins it made opened as tally opens them, and a `drop` that removes exactly what was made (profiles are named by
 * their content, and MariaDB's tally_policy schema is the server's, shared with other tests).
 */
import type { DatabaseSettings } from '../../src/base/config-types.js';
import { createLogger } from '../../src/base/logger.js';
import { openPlainConnection } from '../../src/db/plain-connection.js';
import { applyPolicyViews } from '../../src/policy/apply-policy-views.js';
import type { Policy } from '../../src/policy/policy-file.js';
import { openPolicyViews } from '../../src/policy/policy-views.js';
import type { ProfileDatabases } from '../../src/policy/profile-databases.js';
import { dropProfileStatements } from '../../src/policy/profile-sql.js';
import { POLICY } from './policy-grants.js';
import { LIMITS } from './sample-databases.js';

/** The secret policy-grants.ts's KEY derives from. */
export const POLICY_SECRET = 'secret';

export interface AppliedLogins {
  /** The profiles apply made, by name, and those it removed. */
  profiles: string[];
  removed: string[];
  /** What apply printed. */
  output: string;
  /** Removes the profiles, their logins and (MariaDB) the key row. */
  drop(): Promise<void>;
}

export async function applyLogins(
  settings: DatabaseSettings,
  adminUrl: string,
  options: { policy?: Policy; dryRun?: boolean } = {},
): Promise<AppliedLogins> {
  const lines: string[] = [];
  const result = await applyPolicyViews({
    settings,
    policy: options.policy ?? POLICY,
    secret: POLICY_SECRET,
    adminUrl,
    dryRun: options.dryRun ?? false,
    print: (line) => lines.push(line),
  });
  return {
    ...result,
    output: lines.join('\n'),
    drop: () => dropLogins(adminUrl, options.dryRun ? [] : result.profiles, settings),
  };
}

export async function dropLogins(adminUrl: string, profiles: readonly string[], settings: DatabaseSettings) {
  const admin = await openPlainConnection(adminUrl);
  try {
    for (const name of new Set(profiles)) {
      for (const statement of dropProfileStatements(admin.dialect, name)) await admin.query(statement);
    }
    // PostgreSQL's tally_policy goes with the test's database.
    if (admin.dialect === 'mysql') {
      const schema = decodeURIComponent(new URL(settings.url).pathname.slice(1));
      await admin.query('DELETE FROM tally_policy.pseudonym_keys WHERE location = ?', [schema]);
    }
  } finally {
    await admin.close();
  }
}

/** The logins of `settings` as start-up opens them (after its check), or a failure when the check finds problems. */
export async function openLogins(settings: DatabaseSettings, policy: Policy = POLICY): Promise<ProfileDatabases> {
  const views = await openPolicyViews({
    databases: [settings],
    policy,
    secret: POLICY_SECRET,
    limits: LIMITS,
    logger: createLogger({ level: 'silent' }),
  });
  const logins = views.get(settings.name);
  if (!logins) throw new Error(`no logins for ${settings.name}: was the policy applied?`);
  return logins;
}
