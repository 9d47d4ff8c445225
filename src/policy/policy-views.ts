/**
 * At start-up, under an access policy: which configured databases enforce it themselves (`tally policy apply` made
 * their views and logins, and they match), which are masked by tally's rewrite alone (said once, with what is lost),
 * and whether anything is missing or outdated, which stops start-up.
 */
import type { DatabaseLimitSettings, DatabaseSettings } from '../base/config-types.js';
import { PolicyViewsError } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import type { Database } from '../ports/database.js';
import { checkPolicyViews, type ViewsState } from './check-policy-views.js';
import { hasLogins } from './database-catalog.js';
import type { Policy } from './policy-file.js';
import { ProfileDatabases } from './profile-databases.js';

export const REWRITE_ONLY_WARNING =
  'the access policy is enforced by tally alone (its statement checks and masking rewrite), not by the database: run tally policy apply --admin-url URL so a statement runs as a login that can read only what the person may (README: Who sees what)';

export async function openPolicyViews(options: {
  databases: readonly DatabaseSettings[];
  policy: Policy;
  secret: string | undefined;
  limits: DatabaseLimitSettings;
  logger: Logger;
  say?: (line: string) => void;
  /** Wraps each login's database as the configured ones are (metrics). */
  wrap?: (database: Database) => Database;
}): Promise<Map<string, ProfileDatabases>> {
  const { policy, secret, limits, logger, wrap } = options;
  const states = await policyViewStates(options.databases, policy, secret);
  const problems = states.flatMap(({ settings, state }) =>
    state.state === 'problems' ? state.problems.map((problem) => ({ database: settings.name, problem })) : [],
  );
  if (problems.length > 0) throw new PolicyViewsError(problems);
  const rewriteOnly = states.filter(({ settings, state }) => state.state === 'rewrite only' && hasLogins(settings));
  if (rewriteOnly.length > 0) {
    const names = rewriteOnly.map(({ settings }) => settings.name).join(', ');
    logger.warn({ databases: names }, REWRITE_ONLY_WARNING);
    options.say?.(`warning: ${names}: ${REWRITE_ONLY_WARNING}`);
  }
  const views = new Map<string, ProfileDatabases>();
  for (const { settings, state } of states) {
    if (state.state !== 'views' || state.profiles.length === 0 || !secret) continue;
    const applied = new Set(state.profiles.map((profile) => profile.name));
    views.set(
      settings.name,
      new ProfileDatabases({
        settings,
        limits,
        logger,
        secret,
        catalog: state.catalog,
        applied,
        ...(wrap ? { wrap } : {}),
      }),
    );
  }
  return views;
}

/** Each database's state (`tally policy check` prints them). */
export async function policyViewStates(
  databases: readonly DatabaseSettings[],
  policy: Policy,
  secret: string | undefined,
): Promise<Array<{ settings: DatabaseSettings; state: ViewsState }>> {
  return Promise.all(
    databases.map(async (settings) => ({ settings, state: await checkPolicyViews(settings, policy, secret) })),
  );
}
