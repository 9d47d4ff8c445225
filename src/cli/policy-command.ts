/**
 * `tally policy explain --user U [--channel C | --dm] [--groups G1,G2] [--platform slack|discord|console]
 * [--guild G]`: prints what that person may read there under TALLY_POLICY, and why.
 */

import { existsSync } from 'node:fs';
import { loadConfig } from '../base/config.js';
import { ConfigError } from '../base/errors.js';
import { createLogger } from '../base/logger.js';
import { openDatabase, sqlitePath } from '../db/open-database.js';
import type { Principal } from '../policy/access.js';
import { explainPolicy } from '../policy/explain-policy.js';
import { loadPolicy } from '../policy/policy-file.js';
import type { Database } from '../ports/database.js';
import { applyCommand, checkCommand } from './policy-views-command.js';

export const POLICY_USAGE = `usage: tally policy explain --user ID [--channel ID | --dm] [--groups ID,ID] [--platform slack|discord|console] [--guild ID]
  what that person may read there under TALLY_POLICY (tables, columns, masks) and which rule decides.
  --groups names their Slack user groups or Discord roles; --platform defaults to slack for U…/W… ids,
  discord for numeric ids, console otherwise.
       tally policy apply --admin-url URL [--db NAME] [--dry-run]
  makes the database enforce TALLY_POLICY: per view profile a schema of views and a login that reads only them
  (MySQL/MariaDB, PostgreSQL). URL: an account on the same server that may create schemas, views and users.
  --dry-run prints the statements, secrets as …
       tally policy check
  whether each database's views and logins match the policy (exit 2 when not).`;

const FLAGS = new Set(['--user', '--channel', '--groups', '--platform', '--guild']);

/** Parsed flags, or a problem to print with the usage. */
export function parseExplainFlags(words: readonly string[]): Principal | string {
  const values = new Map<string, string>();
  let dm = false;
  for (let at = 0; at < words.length; at += 1) {
    const word = words[at] ?? '';
    const [flag = '', inline] = word.split(/=(.*)/s);
    if (flag === '--dm') {
      dm = true;
      continue;
    }
    if (!FLAGS.has(flag)) return `unknown flag ${word}`;
    const value = inline ?? words[++at];
    if (value === undefined || value === '') return `${flag} needs a value`;
    values.set(flag, value);
  }
  const user = values.get('--user');
  if (!user) return '--user is required';
  const platform =
    values.get('--platform') ?? (/^[UW][A-Z0-9]+$/.test(user) ? 'slack' : /^\d+$/.test(user) ? 'discord' : 'console');
  if (platform !== 'slack' && platform !== 'discord' && platform !== 'console')
    return `--platform ${platform}: use slack, discord or console`;
  const channel = values.get('--channel');
  const guild = values.get('--guild');
  return {
    platform,
    userId: user,
    groups: (values.get('--groups') ?? '')
      .split(',')
      .map((group) => group.trim())
      .filter(Boolean),
    place:
      platform === 'console'
        ? { channel: 'console', dm: true }
        : { channel: channel ?? '', dm: dm || channel === undefined },
    ...(guild ? { guild } : {}),
  };
}

export async function policyCommand(words: readonly string[], print: (line: string) => void): Promise<number> {
  const [sub, ...rest] = words;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    print(POLICY_USAGE);
    return 0;
  }
  if (sub === 'check') return checkCommand(print);
  const applied = sub === 'apply' ? await applyCommand(rest, print) : undefined;
  if (typeof applied === 'number') return applied;
  const principal = applied ?? (sub === 'explain' ? parseExplainFlags(rest) : `unknown subcommand '${sub ?? ''}'`);
  if (typeof principal === 'string') {
    process.stderr.write(`tally policy: ${principal}\n${POLICY_USAGE}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  if (!config.access.policyFile) {
    throw new ConfigError([{ variable: 'TALLY_POLICY', message: 'set it to the access policy file to explain' }]);
  }
  const policy = await loadPolicy(
    config.access.policyFile,
    config.databases.map((settings) => settings.name),
  );
  const logger = createLogger({ level: 'silent' });
  const opened: Array<{ name: string; database?: Database; problem?: string }> = [];
  for (const settings of config.databases) {
    if (settings.embedded && !existsSync(sqlitePath(settings.url))) {
      opened.push({ name: settings.name, problem: 'the demo database is not built yet (run tally demo)' });
      continue;
    }
    try {
      opened.push({ name: settings.name, database: await openDatabase(settings, config.databaseLimits, logger) });
    } catch (error) {
      opened.push({ name: settings.name, problem: (error as Error).message });
    }
  }
  try {
    print(`policy ${config.access.policyFile}`);
    for (const line of await explainPolicy(policy, principal, opened)) print(line);
  } finally {
    await Promise.all(opened.map(({ database }) => database?.close()));
  }
  return 0;
}
