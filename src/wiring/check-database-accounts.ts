/**
 * The start-up check of the configured database accounts: each grant beyond reading its own schema is a warning,
 * and with TALLY_REQUIRE_READONLY (default on for the chat services) a reason to stop.
 */
import type { Config } from '../base/config.js';
import { DatabaseAccountNotReadonlyError } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import { checkAccount, databaseVariable, describeFinding } from '../db/account-check.js';

export interface CheckDatabaseAccountsOptions {
  /** Told each warning too (the console, `tally ask`). */
  say?: (line: string) => void;
  /** Stop on a finding when TALLY_REQUIRE_READONLY is not set. Default false. */
  requireReadonly?: boolean;
}

/**
 * Warns, loudly and grant by grant, about database accounts that can write, administer the server
 * or read other schemas; with TALLY_REQUIRE_READONLY (default on for the chat services) start-up stops.
 */
export async function checkDatabaseAccounts(
  config: Config,
  logger: Logger,
  options: CheckDatabaseAccountsOptions,
): Promise<void> {
  const findings = (
    await Promise.all(
      config.databases.map((settings, index) =>
        checkAccount(settings, databaseVariable(index, settings)).catch((error: unknown) => {
          logger.warn({ err: error, database: settings.name }, 'could not check the database account');
          return [];
        }),
      ),
    )
  ).flat();
  for (const finding of findings) {
    logger.warn(
      { variable: finding.variable, grant: finding.grant, problem: finding.problem },
      describeFinding(finding),
    );
    options.say?.(`warning: ${describeFinding(finding)}`);
  }
  if (findings.length > 0 && (config.operations.requireReadonly ?? options.requireReadonly ?? false)) {
    throw new DatabaseAccountNotReadonlyError(findings);
  }
}
