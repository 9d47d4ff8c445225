/**
 * Due times: computed in the schedule's time zone (daylight saving included), shown as people there
 * read them, and the missed-run rule: after a downtime only the latest missed due time runs.
 */
import { describe, expect, it } from 'vitest';
import {
  cronProblem,
  dueToRun,
  formatDueTime,
  latestDueAt,
  nextDueTimes,
  timezoneProblem,
} from '../../src/schedules/due-times.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

const WEEKDAYS_9_BERLIN = { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin' };
const EVERY_MINUTE = { cron: '* * * * *', timezone: 'UTC' };
const DAILY_9_NEW_YORK = { cron: '0 9 * * *', timezone: 'America/New_York' };

describe('due times', () => {
  it('reads the expression in its time zone, across a weekend and a change to summer time', () => {
    const next = nextDueTimes(WEEKDAYS_9_BERLIN, at('2025-03-28T10:00:00Z'), 3).map(iso);
    // Friday 28 March is past 09:00; Berlin moves to CEST (UTC+2) on Sunday 30 March.
    expect(next).toEqual(['2025-03-31T07:00:00.000Z', '2025-04-01T07:00:00.000Z', '2025-04-02T07:00:00.000Z']);
    const before = nextDueTimes(WEEKDAYS_9_BERLIN, at('2025-03-27T07:59:00Z'), 1).map(iso);
    expect(before).toEqual(['2025-03-27T08:00:00.000Z']); // still CET (UTC+1)
  });

  it('keeps 09:00 local in New York when the clocks go back', () => {
    const next = nextDueTimes(DAILY_9_NEW_YORK, at('2025-11-01T12:00:00Z'), 3).map(iso);
    expect(next).toEqual(['2025-11-01T13:00:00.000Z', '2025-11-02T14:00:00.000Z', '2025-11-03T14:00:00.000Z']);
  });

  it('shows a due time in the schedule’s zone with its offset', () => {
    expect(formatDueTime(at('2025-03-31T07:00:00Z'), 'Europe/Berlin')).toBe(
      'Mon 2025-03-31 09:00 (Europe/Berlin, GMT+2)',
    );
    expect(formatDueTime(at('2025-11-03T14:00:00Z'), 'America/New_York')).toBe(
      'Mon 2025-11-03 09:00 (America/New_York, GMT-5)',
    );
  });

  it('counts a due time at the very moment as due', () => {
    expect(iso(latestDueAt(EVERY_MINUTE, at('2025-01-06T09:00:00Z')))).toBe('2025-01-06T09:00:00.000Z');
    expect(iso(latestDueAt(EVERY_MINUTE, at('2025-01-06T08:59:59.999Z')))).toBe('2025-01-06T08:59:00.000Z');
    expect(latestDueAt({ cron: '0 0 30 2 *', timezone: 'UTC' }, at('2025-01-06T09:00:00Z'))).toBeUndefined();
  });
});

describe('what runs now', () => {
  it('runs a due time once: not again after it was handled', () => {
    const handled = at('2025-01-06T08:59:00Z');
    const now = at('2025-01-06T09:00:00.200Z');
    expect(iso(dueToRun(EVERY_MINUTE, handled, now))).toBe('2025-01-06T09:00:00.000Z');
    expect(dueToRun(EVERY_MINUTE, at('2025-01-06T09:00:00Z'), now)).toBeUndefined();
  });

  it('after a downtime runs only the latest missed due time, the one less than a period late', () => {
    // Last run Monday 09:00; down until Wednesday 10:30: Tuesday's run is more than a day late.
    const handled = at('2025-01-06T14:00:00Z'); // Mon 09:00 in New York
    const now = at('2025-01-08T15:30:00Z'); // Wed 10:30 in New York
    expect(iso(dueToRun(DAILY_9_NEW_YORK, handled, now))).toBe('2025-01-08T14:00:00.000Z');
  });

  it('does not run a schedule first seen after its due time (handled up to the moment it was seen)', () => {
    const seen = at('2025-01-08T14:30:00Z');
    expect(dueToRun(DAILY_9_NEW_YORK, seen, seen)).toBeUndefined();
    expect(dueToRun(DAILY_9_NEW_YORK, seen, at('2025-01-09T13:59:59Z'))).toBeUndefined();
    expect(iso(dueToRun(DAILY_9_NEW_YORK, seen, at('2025-01-09T14:00:00Z')))).toBe('2025-01-09T14:00:00.000Z');
  });
});

describe('checks', () => {
  it('names what is wrong with an expression or a zone', () => {
    expect(cronProblem({ cron: '*/15 * * * *', timezone: 'UTC' })).toBeUndefined();
    expect(cronProblem({ cron: '0 9 * * MON-FRI', timezone: 'UTC' })).toBeUndefined();
    expect(cronProblem({ cron: '61 * * * *', timezone: 'UTC' })).toMatch(/Invalid value for minute: 61$/);
    expect(cronProblem({ cron: '* * * * * *', timezone: 'UTC' })).toMatch(/needs exactly five fields/);
    expect(cronProblem({ cron: '0 0 30 2 *', timezone: 'UTC' })).toBe("'0 0 30 2 *' is never due");
    expect(timezoneProblem('Europe/Berlin')).toBeUndefined();
    expect(timezoneProblem('CET+1')).toMatch(/^unknown time zone 'CET\+1'/);
  });
});
