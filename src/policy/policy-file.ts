/**
 * The access policy file (TALLY_POLICY, YAML or JSON): named sets of people and places, what each set may read in
 * which database, the sensitive columns of each database and how they are masked, and where a database's results
 * may be shown. Checked with zod at start-up; every problem is listed by entry and field at once.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PolicyFileError, type PolicyIssue } from '../errors.js';

const ids = z.array(z.coerce.string().min(1)).default([]);

/** Who (people, groups) and where (channels, guilds): a set matches a message by either. */
const principalSet = z
  .object({
    slack_users: ids,
    slack_usergroups: ids,
    slack_channels: ids,
    discord_users: ids,
    discord_roles: ids,
    discord_channels: ids,
    discord_guilds: ids,
    console_users: ids,
  })
  .strict();

export type Treatment = 'hash' | 'redact';

/** `table.column`, each side a name or a pattern with `*` and `?`. */
const columnPattern = z.string().regex(/^[^.\s]+\.[^.\s]+$/, 'a table.column pattern, e.g. crm.email or *.ssn');
const tablePattern = z.string().regex(/^[^\s]+$/, 'a table name or pattern, e.g. customers, sales_* or *');

const databasePolicy = z
  .object({
    /** `table.column` pattern → how it is masked for people not granted it raw. */
    sensitive: z.record(columnPattern, z.enum(['hash', 'redact'])).default({}),
    /** Names of principal sets whose channels may show this database's results; absent: anywhere. */
    show_in: z.array(z.string().min(1)).optional(),
  })
  .strict();

const grant = z
  .object({
    /** Names of principal sets. */
    to: z.array(z.string().min(1)).min(1),
    database: z.string().min(1),
    tables: z.array(tablePattern).min(1),
    /** `table.column` patterns; default every column of the granted tables. */
    columns: z.array(columnPattern).optional(),
    /** Sensitive `table.column` patterns this grant sees unmasked. */
    raw: z.array(columnPattern).default([]),
  })
  .strict();

const policySchema = z
  .object({
    principals: z.record(z.string().regex(/^[\w.-]+$/, 'letters, digits, dot, dash or underscore'), principalSet),
    databases: z.record(z.string().min(1), databasePolicy).default({}),
    grants: z.array(grant).default([]),
  })
  .strict();

export type PrincipalSet = z.infer<typeof principalSet>;
export type DatabasePolicy = z.infer<typeof databasePolicy>;
export type Grant = z.infer<typeof grant>;
export type Policy = z.infer<typeof policySchema>;

/** Reads and checks the policy file; `databases`: the configured database names, which grants must name. */
export async function loadPolicy(path: string, databases: readonly string[]): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new PolicyFileError(path, [{ entry: '(file)', field: '', message: (error as Error).message }]);
  }
  return parsePolicy(text, path, databases);
}

export function parsePolicy(text: string, path: string, databases: readonly string[]): Policy {
  let raw: unknown;
  try {
    raw = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new PolicyFileError(path, [{ entry: '(file)', field: '', message: (error as Error).message }]);
  }
  const parsed = policySchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new PolicyFileError(
      path,
      parsed.error.issues.map((issue) => describeIssue(issue.path, issue.message)),
    );
  }
  const issues = crossCheck(parsed.data, databases);
  if (issues.length > 0) throw new PolicyFileError(path, issues);
  return parsed.data;
}

/** `grants[2].to` → entry `grants[2]`, field `to`; `principals.analysts.slack_users[1]` likewise. */
function describeIssue(path: ReadonlyArray<PropertyKey>, message: string): PolicyIssue {
  const parts = path.map(String);
  const [section, key, ...rest] = parts;
  if (section === undefined) return { entry: '(file)', field: '', message };
  if (key === undefined) return { entry: section, field: '', message };
  const entry = section === 'grants' ? `grants[${key}]` : `${section}.${key}`;
  return { entry, field: rest.join('.'), message };
}

/** What zod cannot see: names that must refer to something. */
function crossCheck(policy: Policy, databases: readonly string[]): PolicyIssue[] {
  const issues: PolicyIssue[] = [];
  const sets = new Set(Object.keys(policy.principals));
  const known = `configured databases: ${databases.join(', ') || 'none'}`;
  const unknownSet = (name: string) => `no principal set '${name}' (sets: ${[...sets].join(', ') || 'none'})`;
  for (const [name, database] of Object.entries(policy.databases)) {
    if (!databases.includes(name)) {
      issues.push({ entry: `databases.${name}`, field: '', message: `no database '${name}' is configured (${known})` });
    }
    for (const [index, set] of (database.show_in ?? []).entries()) {
      if (!sets.has(set))
        issues.push({ entry: `databases.${name}`, field: `show_in.${index}`, message: unknownSet(set) });
    }
  }
  for (const [index, entry] of policy.grants.entries()) {
    const at = `grants[${index}]`;
    if (!databases.includes(entry.database)) {
      issues.push({
        entry: at,
        field: 'database',
        message: `no database '${entry.database}' is configured (${known})`,
      });
    }
    for (const [position, set] of entry.to.entries()) {
      if (!sets.has(set)) issues.push({ entry: at, field: `to.${position}`, message: unknownSet(set) });
    }
  }
  for (const [name, set] of Object.entries(policy.principals)) {
    if (Object.values(set).every((list) => list.length === 0)) {
      issues.push({ entry: `principals.${name}`, field: '', message: 'names no user, group, channel or guild' });
    }
  }
  return issues;
}

/** The Slack user groups the policy names: the Slack adapter resolves membership of these. */
export function policyUsergroups(policy: Policy): string[] {
  return [...new Set(Object.values(policy.principals).flatMap((set) => set.slack_usergroups))];
}
