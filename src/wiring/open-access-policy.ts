/**
 * The access policy of a tally (TALLY_POLICY), in the two steps of start-up it takes: its file read and checked
 * before anything starts, so a bad policy stops start-up listing every problem; its views opened over the databases
 * once they are.
 */
import type { Config } from '../base/config.js';
import type { Logger } from '../base/logger.js';
import { measuredDatabase } from '../db/measured-database.js';
import { AccessPolicy, requirePseudonymSecret } from '../policy/access-policy.js';
import { loadPolicy, type Policy } from '../policy/policy-file.js';
import { openPolicyViews } from '../policy/policy-views.js';
import type { Database } from '../ports/database.js';
import type { Metrics } from '../ports/metrics.js';

/** Without a policy file the chat services say once, at start-up, that everyone reads everything. */
export const NO_POLICY_WARNING =
  'no access policy (TALLY_POLICY): every user who can reach tally reads every table of every configured database, and masks nothing';

/** The policy file's rules, checked against the configured databases and TALLY_PSEUDONYM_KEY; undefined without one. */
export async function loadPolicyRules(
  config: Config,
  logger: Logger,
  options: { say?: (line: string) => void; warnWithoutPolicy?: boolean },
): Promise<Policy | undefined> {
  const { policyFile } = config.access;
  const policyRules = policyFile
    ? await loadPolicy(
        policyFile,
        config.databases.map((database) => database.name),
      )
    : undefined;
  if (policyRules) requirePseudonymSecret(policyRules, config.access);
  if (!policyRules && options.warnWithoutPolicy) {
    logger.warn({ variable: 'TALLY_POLICY' }, NO_POLICY_WARNING);
    options.say?.(`warning: ${NO_POLICY_WARNING}`);
  }
  return policyRules;
}

/** The policy over the opened databases, with the views and logins `tally policy apply` made where they match it. */
export async function openAccessPolicy(options: {
  config: Config;
  logger: Logger;
  policyRules: Policy;
  databases: Database[];
  metrics: Metrics;
  say?: (line: string) => void;
}): Promise<AccessPolicy> {
  const { config, logger, policyRules, metrics } = options;
  const views = await openPolicyViews({
    databases: config.databases,
    policy: policyRules,
    secret: config.access.pseudonymSecret,
    limits: config.databaseLimits,
    logger,
    ...(options.say ? { say: options.say } : {}),
    wrap: (database) => measuredDatabase(database, metrics),
  });
  return new AccessPolicy(policyRules, config.access, options.databases, views);
}
