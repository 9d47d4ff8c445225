/**
 * The schedules file: YAML and JSON read alike, a playbook becomes its question, and every problem of
 * a malformed file is reported at once, naming the entry (by name, else its position) and the field.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPlaybooks, type Playbook } from '../../src/agent/playbooks.js';
import { loadConfig } from '../../src/base/config.js';
import { ScheduleFileError } from '../../src/base/errors.js';
import { loadSchedules } from '../../src/schedules/load-schedules.js';
import { loadScheduleFile, parseScheduleFile, type ScheduleContext } from '../../src/schedules/schedule-file.js';

let context: ScheduleContext;
let folder: string;

beforeAll(async () => {
  const playbooks: Playbook[] = await loadPlaybooks();
  context = { databases: ['telco_db', 'sales'], playbooks };
  folder = await mkdtemp(join(tmpdir(), 'tally-schedules-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const VALID = `
schedules:
  - name: weekly-churn
    cron: "0 9 * * 1"
    timezone: Europe/Berlin
    playbook: churn-drivers.md
    database: telco_db
    channel: slack:T0123ABCD:C0456EFGH
    owner: U0789IJKL
    review: auto
  - name: daily-counts
    cron: "30 7 * * 1-5"
    timezone: America/New_York
    request: Are the row counts of the telco_db tables consistent?
    channel: discord:1300000000000000001:1300000000000000500
    owner: "1300000000000000042"
`;

/** The error's issues as `entry / field: message` lines. */
function issuesOf(text: string): string[] {
  try {
    parseScheduleFile(text, 'schedules.yaml', context);
  } catch (error) {
    if (!(error instanceof ScheduleFileError)) throw error;
    return error.issues.map((issue) => `${issue.entry} / ${issue.field}: ${issue.message}`);
  }
  throw new Error('the file was accepted');
}

describe('the schedules file', () => {
  it('reads YAML: a playbook becomes its question, the database is named, review defaults to review', () => {
    const [weekly, daily] = parseScheduleFile(VALID, 'schedules.yaml', context);
    expect(weekly).toEqual({
      name: 'weekly-churn',
      cron: '0 9 * * 1',
      timezone: 'Europe/Berlin',
      request:
        "What drives churn? Follow the playbook 'Churn driver analysis' (churn-drivers.md). Use the database telco_db.",
      playbook: 'churn-drivers.md',
      database: 'telco_db',
      channel: 'slack:T0123ABCD:C0456EFGH',
      platform: 'slack',
      owner: 'U0789IJKL',
      review: 'auto',
    });
    expect(daily).toMatchObject({
      request: 'Are the row counts of the telco_db tables consistent?',
      platform: 'discord',
      review: 'review',
    });
  });

  it('reads JSON, as a bare list too, and a playbook named without .md', async () => {
    const path = join(folder, 'schedules.json');
    const entry = {
      name: 'segments',
      cron: '0 6 1 * *',
      timezone: 'UTC',
      playbook: 'customer-segmentation',
      channel: 'slack:T1:C1',
      owner: 'U1',
    };
    await writeFile(path, JSON.stringify([entry]));
    const [schedule] = await loadScheduleFile(path, context);
    expect(schedule?.playbook).toBe('customer-segmentation.md');
    expect(schedule?.request).toMatch(/^What kinds of customers do we have\? Follow the playbook/);
  });

  it('names every bad entry and field at once', () => {
    const issues = issuesOf(`
schedules:
  - name: weekly-churn
    cron: "0 9 * *"
    timezone: Europe/Berlin
    request: What drives churn?
    channel: slack:T1:C1
    owner: U1
  - name: bad-zone
    cron: "0 9 * * 1"
    timezone: Mars/Olympus
    request: x
    channel: slack:T1:C1
    owner: U1
  - cron: "0 9 * * 1"
    timezone: UTC
    request: x
    channel: teams:T1:C1
    owner: U1
  - name: both
    cron: "0 9 * * 1"
    timezone: UTC
    request: x
    playbook: churn-drivers.md
    database: warehouse
    channel: discord:1:2
    owner: U1
    reveiw: auto
  - name: nothing-asked
    cron: "0 0 30 2 *"
    timezone: UTC
    playbook: retention.md
    channel: slack:T1:C1
    owner: "12345"
    review: sometimes
  - name: weekly-churn
    cron: "0 10 * * 1"
    timezone: UTC
    request: again
    channel: slack:T1:C1
    owner: U1
`);
    expect(issues).toEqual([
      "'weekly-churn' / cron: '0 9 * *' needs exactly five fields: minute hour day-of-month month day-of-week",
      expect.stringMatching(/^'bad-zone' \/ timezone: unknown time zone 'Mars\/Olympus'/),
      'entry 3 / name: missing',
      expect.stringMatching(/^entry 3 \/ channel: use slack:<team id>:<channel id>/),
      expect.stringMatching(/^'both' \/ reveiw: unknown field/),
      // An entry with a field of the wrong kind still has its other fields checked, all in one round.
      "'both' / request: give either request (what to analyse) or playbook, not both",
      "'both' / database: no database 'warehouse' is configured (known: telco_db, sales)",
      "'both' / owner: not a discord user id (e.g. 123456789012345678)",
      expect.stringMatching(/^'nothing-asked' \/ review: use review/),
      "'nothing-asked' / cron: '0 0 30 2 *' is never due",
      expect.stringMatching(/^'nothing-asked' \/ playbook: no playbook 'retention.md'/),
      "'nothing-asked' / owner: not a slack user id (e.g. U0123ABCD)",
      expect.stringMatching(/^'weekly-churn' \/ name: another entry has this name/),
    ]);
  });

  it('asks to quote a bare numeric id, with every digit, and still checks the rest of the entry', () => {
    const issues = issuesOf(`
- name: discord-weekly
  cron: "0 9 * *"
  timezone: UTC
  request: hi
  channel: discord:123456789012345678:123456789012345679
  owner: 123456789012345678
`);
    expect(issues).toEqual([
      '\'discord-weekly\' / owner: write it in quotes ("123456789012345678"): YAML reads a bare number, which may lose digits',
      "'discord-weekly' / cron: '0 9 * *' needs exactly five fields: minute hour day-of-month month day-of-week",
    ]);
  });

  it('checks what zod cannot: request or playbook, known names, the owner, a cron that is never due', () => {
    const issues = issuesOf(`
- name: both
  cron: "0 9 * * 1"
  timezone: UTC
  request: x
  playbook: churn-drivers.md
  database: warehouse
  channel: discord:1:2
  owner: U1
- name: never
  cron: "0 0 30 2 *"
  timezone: UTC
  playbook: retention.md
  channel: slack:T1:C1
  owner: "12345"
`);
    expect(issues).toEqual([
      "'both' / request: give either request (what to analyse) or playbook, not both",
      "'both' / database: no database 'warehouse' is configured (known: telco_db, sales)",
      "'both' / owner: not a discord user id (e.g. 123456789012345678)",
      "'never' / cron: '0 0 30 2 *' is never due",
      expect.stringMatching(/^'never' \/ playbook: no playbook 'retention.md' \(known: churn-drivers.md, /),
      "'never' / owner: not a slack user id (e.g. U0123ABCD)",
    ]);
  });

  it('refuses a file that is not a list of schedules, or not YAML at all, as a whole', () => {
    expect(issuesOf('name: weekly')).toEqual([expect.stringMatching(/^\(file\) \/ : the file must hold a list/)]);
    expect(issuesOf('schedules: []')).toEqual(['(file) / : the list of schedules is empty']);
    expect(issuesOf('schedules:\n  - name: [unclosed')).toEqual([
      expect.stringMatching(/^\(file\) \/ : not YAML or JSON: .* at line 2, column 20$/),
    ]);
  });

  it('is named by TALLY_SCHEDULES, as an absolute path', () => {
    expect(loadConfig({ TALLY_SCHEDULES: 'ops/schedules.yaml' }).schedulesFile).toBe(resolve('ops/schedules.yaml'));
    expect(loadConfig({}).schedulesFile).toBeUndefined();
  });

  it('refuses a channel tally would ignore replies in, naming the allow-list', async () => {
    const path = join(folder, 'allowed.yaml');
    const entry = (name: string, channel: string, owner: string) =>
      `  - {name: ${name}, cron: "0 9 * * 1", timezone: UTC, request: x, channel: "${channel}", owner: "${owner}"}`;
    await writeFile(
      path,
      [
        'schedules:',
        entry('here', 'slack:T1:C1', 'U1'),
        entry('elsewhere', 'slack:T1:C9', 'U1'),
        entry('guild', 'discord:7:8', '5'),
      ].join('\n'),
    );
    const config = loadConfig({
      TALLY_SCHEDULES: path,
      TALLY_HOME: folder,
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_APP_TOKEN: 'xapp-1',
      SLACK_ALLOWED_CHANNELS: 'C1',
      DISCORD_TOKEN: 'token',
      DISCORD_ALLOWED_GUILDS: '6',
    });
    const error = await loadSchedules(config).catch((caught: unknown) => caught);
    expect((error as ScheduleFileError).issues).toEqual([
      { entry: "'elsewhere'", field: 'channel', message: expect.stringContaining('add it to SLACK_ALLOWED_CHANNELS') },
      { entry: "'guild'", field: 'channel', message: expect.stringContaining('add it to DISCORD_ALLOWED_GUILDS') },
    ]);
  });

  it('says the file is missing, naming TALLY_SCHEDULES', async () => {
    const error = await loadScheduleFile(join(folder, 'none.yaml'), context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScheduleFileError);
    expect((error as ScheduleFileError).code).toBe('SCHEDULES_INVALID');
    expect((error as Error).message).toContain('(TALLY_SCHEDULES)');
    expect((error as Error).message).toContain('cannot be read: there is no such file');
  });
});
