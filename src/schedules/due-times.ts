/**
 * When a schedule is due, computed by croner in the schedule's time zone (no cron parsing of our
 * own): the next due times, the latest one at a moment, and the due time to run after a downtime.
 */
import { Cron } from 'croner';

/** A cron expression (five fields: minute hour day-of-month month day-of-week) and an IANA time zone. */
export interface CronSpec {
  cron: string;
  timezone: string;
}

const compiled = new Map<string, Cron>();

/** The spec as a croner job that never runs by itself: only asked for times. */
function cronOf(spec: CronSpec): Cron {
  const key = `${spec.timezone}\n${spec.cron}`;
  let cron = compiled.get(key);
  if (!cron) {
    cron = new Cron(spec.cron, { timezone: spec.timezone, paused: true, mode: '5-part' });
    compiled.set(key, cron);
  }
  return cron;
}

/** What is wrong with a time zone name, or undefined when the platform knows it. */
export function timezoneProblem(timezone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
    return undefined;
  } catch {
    return `unknown time zone '${timezone}': use an IANA name such as Europe/Berlin, America/New_York or UTC`;
  }
}

/** What is wrong with a cron expression (croner's own words), or undefined when it is due at some time. */
export function cronProblem(spec: CronSpec): string | undefined {
  try {
    const first = cronOf(spec).nextRun(new Date());
    return first ? undefined : `'${spec.cron}' is never due`;
  } catch (error) {
    const said = error instanceof Error ? error.message.replace(/^Cron\w*:\s*/, '') : String(error);
    // croner also knows six and seven fields (seconds, years); schedules are read with five only.
    if (/\bparts?\b/.test(said))
      return `'${spec.cron}' needs exactly five fields: minute hour day-of-month month day-of-week`;
    return `'${spec.cron}' is not a cron expression (minute hour day-of-month month day-of-week): ${said}`;
  }
}

/** The next `count` due times strictly after `after` (ms since the epoch), earliest first. */
export function nextDueTimes(spec: CronSpec, after: number, count: number): number[] {
  return cronOf(spec)
    .nextRuns(count, new Date(after))
    .map((date) => date.getTime());
}

/** The latest due time at or before `at`, if the schedule was ever due. */
export function latestDueAt(spec: CronSpec, at: number): number | undefined {
  // croner counts a run in the same second before its reference: one ms later includes `at` itself.
  return cronOf(spec)
    .previousRuns(1, new Date(at + 1))[0]
    ?.getTime();
}

/**
 * The due time to run at `now`, if any: the latest one at or before `now` that comes after
 * `handledUpTo` (the last due time run or claimed). Every earlier due time that was missed (tally was
 * down) is more than one period late, since a later one came after it, so it is skipped: a
 * schedule runs once after a downtime, at start-up, however long tally was down.
 */
export function dueToRun(spec: CronSpec, handledUpTo: number, now: number): number | undefined {
  const latest = latestDueAt(spec, now);
  return latest !== undefined && latest > handledUpTo ? latest : undefined;
}

/** A due time as people in the schedule's time zone read it: `Mon 2025-03-31 09:00 (Europe/Berlin, GMT+2)`. */
export function formatDueTime(at: number, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    weekday: 'short',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'shortOffset',
  }).formatToParts(new Date(at));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((entry) => entry.type === type)?.value ?? '';
  const date = `${part('year')}-${part('month')}-${part('day')}`;
  return `${part('weekday')} ${date} ${part('hour')}:${part('minute')} (${timezone}, ${part('timeZoneName')})`;
}
