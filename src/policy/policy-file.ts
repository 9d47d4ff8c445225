/**
 * The access policy file (TALLY_POLICY, YAML or JSON): named sets of people and places, what each set may read in
 * which database, the sensitive columns of each database and how they are masked, and where a database's results
 * may be shown. Checked with zod at start-up; every problem is listed by entry and field at once.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PolicyFileError, type PolicyIssue } from '../base/errors.js';

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
    sensitive: z.record(z.string(), z.enum(['hash', 'redact'])).default({}),
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

/** Daily budgets for some sets, instead of TALLY_BUDGET_*: a person in several gets the largest of each. */
const budget = z
  .object({
    to: z.array(z.string().min(1)).min(1),
    tokens_per_day: z.coerce.number().int().positive().optional(),
    kernel_minutes_per_day: z.coerce.number().positive().optional(),
  })
  .strict();

const policySchema = z
  .object({
    principals: z.record(z.string(), principalSet),
    databases: z.record(z.string().min(1), databasePolicy).default({}),
    grants: z.array(grant).default([]),
    budgets: z.array(budget).default([]),
  })
  .strict();

export type PrincipalSet = z.infer<typeof principalSet>;
export type DatabasePolicy = z.infer<typeof databasePolicy>;
export type Grant = z.infer<typeof grant>;
export type BudgetRule = z.infer<typeof budget>;
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
    // Integers as BigInt: an unquoted 18-digit Discord id keeps every digit.
    raw = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text, { intAsBigInt: true });
  } catch (error) {
    throw new PolicyFileError(path, [{ entry: '(file)', field: '', message: (error as Error).message }]);
  }
  const parsed = policySchema.safeParse(raw ?? {});
  // What refers to nothing is listed with the mistakes of shape, so one round of edits fixes the file.
  const issues = [
    ...(parsed.success ? [] : parsed.error.issues.map((issue) => describeIssue(issue.path, issue.message))),
    ...crossCheck(loose(raw), databases),
  ];
  if (!parsed.success || issues.length > 0) throw new PolicyFileError(path, issues);
  return parsed.data;
}

/** `grants[2].to` → entry `grants[2]`, field `to`; `principals.analysts.slack_users[1]` likewise. */
function describeIssue(path: ReadonlyArray<PropertyKey>, message: string): PolicyIssue {
  const parts = path.map(String);
  const [section, key, ...rest] = parts;
  if (section === undefined) return { entry: '(file)', field: '', message };
  if (key === undefined) return { entry: section, field: '', message };
  const entry = section === 'grants' || section === 'budgets' ? `${section}[${key}]` : `${section}.${key}`;
  return { entry, field: rest.join('.'), message };
}

/** The parts of a policy the cross-check reads, taken from whatever the file holds. */
interface LoosePolicy {
  principals: Record<string, Record<string, unknown>>;
  databases: Record<string, { sensitive: Record<string, unknown>; showIn: unknown[] }>;
  grants: Array<{ to: unknown[]; database: unknown }>;
  budgets: Array<{ to: unknown[] }>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const asObject = (value: unknown): Record<string, unknown> => (isObject(value) ? value : {});
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function loose(raw: unknown): LoosePolicy {
  const file = asObject(raw);
  return {
    principals: Object.fromEntries(
      Object.entries(asObject(file.principals)).map(([name, set]) => [name, asObject(set)]),
    ),
    databases: Object.fromEntries(
      Object.entries(asObject(file.databases)).map(([name, database]) => [
        name,
        { sensitive: asObject(asObject(database).sensitive), showIn: asArray(asObject(database).show_in) },
      ]),
    ),
    grants: asArray(file.grants).map((grant) => ({
      to: asArray(asObject(grant).to),
      database: asObject(grant).database,
    })),
    budgets: asArray(file.budgets).map((entry) => ({ to: asArray(asObject(entry).to) })),
  };
}

const SET_NAME = /^[\w.-]+$/;
const COLUMN_PATTERN = /^[^.\s]+\.[^.\s]+$/;

/** What zod cannot see: names that must refer to something, and keys that must have a form. */
function crossCheck(policy: LoosePolicy, databases: readonly string[]): PolicyIssue[] {
  const issues: PolicyIssue[] = [];
  const sets = new Set(Object.keys(policy.principals));
  const known = `configured databases: ${databases.join(', ') || 'none'}`;
  const unknownSet = (name: unknown) => `no principal set '${String(name)}' (sets: ${[...sets].join(', ') || 'none'})`;
  for (const [name, set] of Object.entries(policy.principals)) {
    if (!SET_NAME.test(name)) {
      issues.push({
        entry: `principals.${name}`,
        field: '',
        message: 'name sets with letters, digits, dot, dash or underscore',
      });
    }
    if (Object.values(set).every((list) => !Array.isArray(list) || list.length === 0)) {
      issues.push({ entry: `principals.${name}`, field: '', message: 'names no user, group, channel or guild' });
    }
  }
  for (const [name, database] of Object.entries(policy.databases)) {
    if (!databases.includes(name)) {
      issues.push({ entry: `databases.${name}`, field: '', message: `no database '${name}' is configured (${known})` });
    }
    for (const pattern of Object.keys(database.sensitive)) {
      if (!COLUMN_PATTERN.test(pattern)) {
        issues.push({
          entry: `databases.${name}`,
          field: `sensitive.${pattern}`,
          message: 'a table.column pattern, e.g. crm.email or *.ssn',
        });
      }
    }
    for (const [index, set] of database.showIn.entries()) {
      if (!sets.has(String(set)))
        issues.push({ entry: `databases.${name}`, field: `show_in.${index}`, message: unknownSet(set) });
    }
  }
  for (const [index, entry] of policy.grants.entries()) {
    const at = `grants[${index}]`;
    if (typeof entry.database === 'string' && !databases.includes(entry.database)) {
      issues.push({
        entry: at,
        field: 'database',
        message: `no database '${entry.database}' is configured (${known})`,
      });
    }
    for (const [position, set] of entry.to.entries()) {
      if (!sets.has(String(set))) issues.push({ entry: at, field: `to.${position}`, message: unknownSet(set) });
    }
  }
  for (const [index, entry] of policy.budgets.entries()) {
    for (const [position, set] of entry.to.entries()) {
      if (!sets.has(String(set))) {
        issues.push({ entry: `budgets[${index}]`, field: `to.${position}`, message: unknownSet(set) });
      }
    }
  }
  return issues;
}

/** The Slack user groups the policy names: the Slack adapter resolves membership of these. */
export function policyUsergroups(policy: Policy): string[] {
  return [...new Set(Object.values(policy.principals).flatMap((set) => set.slack_usergroups))];
}
