/**
 * `tally policy apply --admin-url URL [--db NAME] [--dry-run]` and `tally policy check`: make, and check, the views
 * and logins through which the database itself enforces TALLY_POLICY (`apply-policy-views.ts`).
 */
import { loadConfig } from '../base/config.js';
import { ConfigError } from '../base/errors.js';
import { applyPolicyViews } from '../policy/apply-policy-views.js';
import { hasLogins } from '../policy/database-catalog.js';
import { loadPolicy, type Policy } from '../policy/policy-file.js';
import { policyViewStates } from '../policy/policy-views.js';

async function loaded() {
  const config = loadConfig(process.env);
  if (!config.access.policyFile) {
    throw new ConfigError([{ variable: 'TALLY_POLICY', message: 'set it to the access policy file' }]);
  }
  const policy: Policy = await loadPolicy(
    config.access.policyFile,
    config.databases.map((settings) => settings.name),
  );
  return { config, policy };
}

/** A problem to print with the usage, or the exit code. */
export async function applyCommand(words: readonly string[], print: (line: string) => void): Promise<number | string> {
  const flags = new Map<string, string>();
  let dryRun = false;
  for (let at = 0; at < words.length; at += 1) {
    const [flag = '', inline] = (words[at] ?? '').split(/=(.*)/s);
    if (flag === '--dry-run') {
      dryRun = true;
      continue;
    }
    if (flag !== '--admin-url' && flag !== '--db') return `unknown flag ${words[at]}`;
    const value = inline ?? words[++at];
    if (!value) return `${flag} needs a value`;
    flags.set(flag, value);
  }
  const adminUrl = flags.get('--admin-url');
  if (!adminUrl) return '--admin-url is required';
  const { config, policy } = await loaded();
  const secret = config.access.pseudonymSecret;
  if (!secret) {
    throw new ConfigError([
      {
        variable: 'TALLY_PSEUDONYM_KEY',
        message:
          "tally policy apply derives the pseudonym key and the logins' passwords from it: set a secret of at least 16 characters",
      },
    ]);
  }
  const only = flags.get('--db');
  const targets = config.databases.filter((settings) => (only ? settings.name === only : hasLogins(settings)));
  if (only && targets.length === 0) return `--db ${only}: no such database is configured`;
  for (const settings of targets) {
    if (!hasLogins(settings)) return `${settings.name} is a SQLite file, which has no logins: tally's rewrite masks it`;
    await applyPolicyViews({ settings, policy, secret, adminUrl, dryRun, print });
  }
  return 0;
}

export async function checkCommand(print: (line: string) => void): Promise<number> {
  const { config, policy } = await loaded();
  let failed = false;
  for (const { settings, state } of await policyViewStates(config.databases, policy, config.access.pseudonymSecret)) {
    if (state.state === 'views') {
      print(`${settings.name}: enforced by the database (${state.profiles.length} view profiles, each checked)`);
    } else if (state.state === 'rewrite only') {
      print(`${settings.name}: tally's rewrite only (${state.reason})`);
    } else {
      failed = true;
      for (const problem of state.problems) print(`${settings.name}: ${problem}`);
    }
  }
  if (failed) print(`run tally policy apply --admin-url URL to make them anew`);
  return failed ? 2 : 0;
}
