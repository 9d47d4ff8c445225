/**
 * The schedules file (TALLY_SCHEDULES, YAML or JSON): a list of scheduled analyses, checked with zod
 * at start-up. Every problem is reported at once, each naming its entry (by name, else by position)
 * and field, so a malformed file stops `tally slack|discord` with one clear message.
 */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import type { Playbook } from '../agent/playbooks.js';
import { ScheduleFileError, type ScheduleIssue } from '../base/errors.js';
import type { ChannelKey } from '../ports/chat.js';
import { cronProblem, timezoneProblem } from './due-times.js';

export type SchedulePlatform = 'slack' | 'discord';

/** A scheduled analysis, as a run needs it. */
export interface Schedule {
  /** Unique in the file; names the schedule in its thread, the store and `tally schedules run`. */
  name: string;
  /** Five fields: minute hour day-of-month month day-of-week (croner's syntax, e.g. `0 9 * * 1`). */
  cron: string;
  /** IANA time zone the expression is read in, e.g. `Europe/Berlin`. */
  timezone: string;
  /** What the run asks, as the owner would: the request, or the playbook's question and name. */
  request: string;
  /** The playbook file the request follows, when the entry named one. */
  playbook?: string;
  /** The configured database the request names, when the entry gave one. */
  database?: string;
  /** Where the run's thread is opened: `slack:<team>:<channel>` or `discord:<guild>:<channel>`. */
  channel: ChannelKey;
  platform: SchedulePlatform;
  /** The user id the request comes from: they decide on the sections (with TALLY_REVIEWERS). */
  owner: string;
  /** `review`: each section waits for review in the thread; `auto`: accepted, then the report is exported. */
  review: 'review' | 'auto';
}

/** What the file is checked against: the configured databases and the playbooks tally follows. */
export interface ScheduleContext {
  databases: readonly string[];
  playbooks: readonly Playbook[];
  /** What keeps people from answering in the channel's threads (e.g. not an allowed channel), if anything. */
  channelProblem?: (channel: ChannelKey) => string | undefined;
}

const NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/i;
const SLACK_CHANNEL = /^slack:[A-Z0-9]+:[A-Z0-9]+$/;
const DISCORD_CHANNEL = /^discord:\d+:\d+$/;
const OWNER: Record<SchedulePlatform, RegExp> = { slack: /^[UW][A-Z0-9]+$/, discord: /^\d+$/ };

const entrySchema = z.strictObject({
  name: z.string().regex(NAME, 'use letters, digits, dot, dash or underscore (at most 64), e.g. weekly-churn'),
  cron: z.string().trim().min(1, 'give a cron expression, e.g. "0 9 * * 1" (Mondays at 09:00)'),
  timezone: z.string().trim().min(1, 'give an IANA time zone, e.g. Europe/Berlin or UTC'),
  request: z.string().trim().min(1, 'say what to analyse').optional(),
  playbook: z.string().trim().min(1, 'name a file in prompts/playbooks, e.g. churn-drivers.md').optional(),
  database: z.string().trim().min(1).optional(),
  channel: z
    .string()
    .refine(
      (value) => SLACK_CHANNEL.test(value) || DISCORD_CHANNEL.test(value),
      'use slack:<team id>:<channel id> (e.g. slack:T0123ABCD:C0456EFGH) or discord:<guild id>:<channel id>',
    ),
  owner: z.string().trim().min(1, 'give the user id who decides on the sections'),
  review: z.enum(['review', 'auto'], 'use review (each section waits for review) or auto').default('review'),
});

type Entry = z.infer<typeof entrySchema>;

/** Reads and checks the file; throws ScheduleFileError naming every bad entry and field. */
export async function loadScheduleFile(path: string, context: ScheduleContext): Promise<Schedule[]> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    const why = error.code === 'ENOENT' ? 'there is no such file' : error.message;
    throw new ScheduleFileError(path, [{ entry: '(file)', field: '', message: `cannot be read: ${why}` }]);
  });
  return parseScheduleFile(text, path, context);
}

/** The schedules in `text` (YAML, or JSON, which YAML reads too); throws ScheduleFileError. */
export function parseScheduleFile(text: string, path: string, context: ScheduleContext): Schedule[] {
  // Integers as BigInt: a bare 18-digit id keeps its digits for the message that asks to quote it.
  const document = parseDocument(text, { prettyErrors: true, intAsBigInt: true });
  const syntax = document.errors[0];
  if (syntax) {
    const message = `not YAML or JSON: ${syntax.message.split('\n')[0]?.replace(/:$/, '')}`;
    throw new ScheduleFileError(path, [{ entry: '(file)', field: '', message }]);
  }
  const top: unknown = document.toJS();
  const entries = Array.isArray(top) ? top : isRecord(top) && Array.isArray(top.schedules) ? top.schedules : undefined;
  if (!entries) {
    const message = 'the file must hold a list of schedules (top-level `schedules:` with one entry per schedule)';
    throw new ScheduleFileError(path, [{ entry: '(file)', field: '', message }]);
  }
  const issues: ScheduleIssue[] = [];
  const schedules: Schedule[] = [];
  const seen = new Set<string>();
  entries.forEach((raw: unknown, index) => {
    const label = entryLabel(raw, index);
    const parsed = entrySchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) issues.push(describeIssue(label, raw, issue));
      // The fields that are of the right type are checked too, so one round of edits fixes the entry.
      const bad = new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '')));
      const partial = validFields(raw, bad);
      issues.push(...checkEntry(partial, context, bad).map((problem) => ({ entry: label, ...problem })));
      return;
    }
    const problems = checkEntry(parsed.data, context);
    if (seen.has(parsed.data.name)) problems.push({ field: 'name', message: 'another entry has this name' });
    seen.add(parsed.data.name);
    if (problems.length > 0) issues.push(...problems.map((problem) => ({ entry: label, ...problem })));
    else schedules.push(toSchedule(parsed.data, context));
  });
  if (entries.length === 0) issues.push({ entry: '(file)', field: '', message: 'the list of schedules is empty' });
  if (issues.length > 0) throw new ScheduleFileError(path, issues);
  return schedules;
}

/** `'weekly-churn'` when the entry has a name, else `entry 3` (1-based, as people count). */
function entryLabel(raw: unknown, index: number): string {
  const name = isRecord(raw) ? raw.name : undefined;
  return typeof name === 'string' && name.trim() !== '' ? `'${name}'` : `entry ${index + 1}`;
}

function describeIssue(entry: string, raw: unknown, issue: z.core.$ZodIssue): ScheduleIssue {
  if (issue.code === 'unrecognized_keys') {
    const fields = 'name, cron, timezone, request or playbook, database, channel, owner, review';
    return { entry, field: issue.keys.join(', '), message: `unknown field (allowed: ${fields})` };
  }
  const field = String(issue.path[0] ?? '');
  if (field === '') return { entry, field, message: 'each schedule is a mapping of fields (name: …, cron: …)' };
  const value = isRecord(raw) ? raw[field] : undefined;
  if (value === undefined) return { entry, field, message: 'missing' };
  if (typeof value === 'number' || typeof value === 'bigint') {
    return {
      entry,
      field,
      message: `write it in quotes ("${String(value)}"): YAML reads a bare number, which may lose digits`,
    };
  }
  return { entry, field, message: issue.message };
}

/** The fields of a raw entry that zod accepted, for the checks that need only them. */
function validFields(raw: unknown, bad: ReadonlySet<string>): Partial<Entry> {
  if (!isRecord(raw)) return {};
  const fields = entrySchema.shape;
  const valid: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(fields)) {
    if (bad.has(name)) continue;
    const parsed = schema.safeParse(raw[name]);
    if (parsed.success && parsed.data !== undefined) valid[name] = parsed.data;
  }
  return valid as Partial<Entry>;
}

/**
 * What zod cannot see alone: cron and zone, request or playbook, known names, the owner's form. `entry` may lack
 * the fields that were of the wrong type (already reported); the checks that need them are skipped.
 */
function checkEntry(
  entry: Partial<Entry>,
  context: ScheduleContext,
  skipped: ReadonlySet<string> = new Set(),
): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  const zone = entry.timezone === undefined ? undefined : timezoneProblem(entry.timezone);
  if (zone) problems.push({ field: 'timezone', message: zone });
  // A bad zone does not hide a bad expression: the expression is then read in UTC.
  const cron =
    entry.cron === undefined
      ? undefined
      : cronProblem({ cron: entry.cron, timezone: zone || entry.timezone === undefined ? 'UTC' : entry.timezone });
  if (cron) problems.push({ field: 'cron', message: cron });
  const requestChecked = !skipped.has('request') && !skipped.has('playbook');
  if (requestChecked && (entry.request === undefined) === (entry.playbook === undefined)) {
    problems.push({ field: 'request', message: 'give either request (what to analyse) or playbook, not both' });
  }
  if (entry.playbook !== undefined && !findPlaybook(entry.playbook, context)) {
    const known = context.playbooks.map((playbook) => playbook.file).join(', ');
    problems.push({ field: 'playbook', message: `no playbook '${entry.playbook}' (known: ${known || 'none'})` });
  }
  if (entry.database !== undefined && !context.databases.includes(entry.database)) {
    const known = context.databases.join(', ');
    problems.push({ field: 'database', message: `no database '${entry.database}' is configured (known: ${known})` });
  }
  if (entry.channel === undefined) return problems;
  const channel = context.channelProblem?.(entry.channel);
  if (channel) problems.push({ field: 'channel', message: channel });
  const platform = platformOf(entry.channel);
  if (entry.owner !== undefined && !OWNER[platform].test(entry.owner)) {
    const example = platform === 'slack' ? 'U0123ABCD' : '123456789012345678';
    problems.push({ field: 'owner', message: `not a ${platform} user id (e.g. ${example})` });
  }
  return problems;
}

function findPlaybook(name: string, context: ScheduleContext): Playbook | undefined {
  const file = name.endsWith('.md') ? name : `${name}.md`;
  return context.playbooks.find((playbook) => playbook.file === file);
}

const platformOf = (channel: string): SchedulePlatform => (channel.startsWith('slack:') ? 'slack' : 'discord');

function toSchedule(entry: Entry, context: ScheduleContext): Schedule {
  const playbook = entry.playbook === undefined ? undefined : findPlaybook(entry.playbook, context);
  const named = playbook ? `the playbook '${playbook.title}' (${playbook.file})` : '';
  // The playbook's own question (`ask:` in its front matter) when it has one.
  const asked = !playbook
    ? (entry.request ?? '')
    : playbook.ask
      ? `${playbook.ask} Follow ${named}.`
      : `Analyse the data as ${named} says.`;
  const request = entry.database ? `${asked} Use the database ${entry.database}.` : asked;
  return {
    name: entry.name,
    cron: entry.cron,
    timezone: entry.timezone,
    request,
    ...(playbook ? { playbook: playbook.file } : {}),
    ...(entry.database ? { database: entry.database } : {}),
    channel: entry.channel,
    platform: platformOf(entry.channel),
    owner: entry.owner,
    review: entry.review,
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
