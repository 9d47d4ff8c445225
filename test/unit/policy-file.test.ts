/**
 * The access policy file: YAML and JSON read alike, defaults filled in, and a file with mistakes refused with
 * every problem named by its entry and field, so one round of edits can fix them all.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyFileError, type PolicyIssue } from '../../src/base/errors.js';
import { loadPolicy, parsePolicy } from '../../src/policy/policy-file.js';

const DATABASES = ['crm', 'finance'];

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-policy-file-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const VALID_YAML = `
principals:
  analysts:
    slack_usergroups: [S0ANALYSTS]
    discord_roles: ["1300000000000000100"]
  data_room:
    slack_channels: [C0DATA]
databases:
  crm:
    sensitive:
      customers.email: hash
      "*.phone": redact
    show_in: [data_room]
grants:
  - to: [analysts]
    database: crm
    tables: [customers, "ticket*"]
    columns: ["customers.*", tickets.topic]
    raw: [customers.email]
  - to: [analysts, data_room]
    database: finance
    tables: ["*"]
`;

const VALID_JSON = JSON.stringify({
  principals: {
    analysts: { slack_usergroups: ['S0ANALYSTS'], discord_roles: ['1300000000000000100'] },
    data_room: { slack_channels: ['C0DATA'] },
  },
  databases: { crm: { sensitive: { 'customers.email': 'hash', '*.phone': 'redact' }, show_in: ['data_room'] } },
  grants: [
    {
      to: ['analysts'],
      database: 'crm',
      tables: ['customers', 'ticket*'],
      columns: ['customers.*', 'tickets.topic'],
      raw: ['customers.email'],
    },
    { to: ['analysts', 'data_room'], database: 'finance', tables: ['*'] },
  ],
});

const NO_IDS = {
  slack_users: [],
  slack_usergroups: [],
  slack_channels: [],
  discord_users: [],
  discord_roles: [],
  discord_channels: [],
  discord_guilds: [],
  console_users: [],
};

/** The issues `parsePolicy` refuses `text` with (a file named `path`). */
function issuesOf(text: string, path = 'policy.yaml'): PolicyIssue[] {
  try {
    parsePolicy(text, path, DATABASES);
  } catch (error) {
    if (!(error instanceof PolicyFileError)) throw error;
    return [...error.issues];
  }
  throw new Error('the policy was accepted');
}

/** `entry | field` of each issue, in order. */
function placesOf(text: string, path?: string): string[] {
  return issuesOf(text, path).map((issue) => `${issue.entry} | ${issue.field}`);
}

describe('a valid policy file', () => {
  it('reads YAML, filling in the lists, sets and fields left out', () => {
    const policy = parsePolicy(VALID_YAML, 'policy.yaml', DATABASES);
    expect(policy).toEqual({
      principals: {
        analysts: { ...NO_IDS, slack_usergroups: ['S0ANALYSTS'], discord_roles: ['1300000000000000100'] },
        data_room: { ...NO_IDS, slack_channels: ['C0DATA'] },
      },
      databases: {
        crm: { sensitive: { 'customers.email': 'hash', '*.phone': 'redact' }, show_in: ['data_room'] },
      },
      grants: [
        {
          to: ['analysts'],
          database: 'crm',
          tables: ['customers', 'ticket*'],
          columns: ['customers.*', 'tickets.topic'],
          raw: ['customers.email'],
        },
        { to: ['analysts', 'data_room'], database: 'finance', tables: ['*'], raw: [] },
      ],
      budgets: [],
    });
  });

  it('reads daily budgets per set, and names a budget that points at no set or has a bad figure', () => {
    const principals = 'principals:\n  analysts: { slack_users: [U1] }\n';
    const policy = parsePolicy(
      `${principals}budgets:\n  - { to: [analysts], tokens_per_day: 500000, kernel_minutes_per_day: 90 }\n`,
      'policy.yaml',
      DATABASES,
    );
    expect(policy.budgets).toEqual([{ to: ['analysts'], tokens_per_day: 500000, kernel_minutes_per_day: 90 }]);
    expect(
      placesOf(`${principals}budgets:\n  - { to: [ghosts], tokens_per_day: -3 }\n  - { to: [analysts], coins: 1 }\n`),
    ).toEqual(expect.arrayContaining(['budgets[0] | tokens_per_day', 'budgets[1] | ', 'budgets[0] | to.0']));
  });

  it('reads the same policy from JSON, by the file name ending in .json', async () => {
    const path = join(folder, 'policy.json');
    await writeFile(path, VALID_JSON);
    const fromJson = await loadPolicy(path, DATABASES);
    expect(fromJson).toEqual(parsePolicy(VALID_YAML, 'policy.yaml', DATABASES));
    // The JSON text is valid YAML too, but a file named .json is read as JSON: a trailing comma is refused.
    expect(placesOf(`${VALID_JSON.slice(0, -1)},}`, 'policy.json')).toEqual(['(file) | ']);
  });

  it('reads a YAML file from disk, and reads ids written as numbers as text', async () => {
    const path = join(folder, 'policy.yaml');
    await writeFile(path, 'principals:\n  ops: { console_users: [1001] }\n');
    const policy = await loadPolicy(path, DATABASES);
    expect(policy.principals.ops?.console_users).toEqual(['1001']);
    expect(policy.databases).toEqual({});
    expect(policy.grants).toEqual([]);
  });
});

describe('a policy file with mistakes', () => {
  const SHAPE_MISTAKES = `
principals:
  analysts:
    slack_users: [U0ALICE]
    slack_user: [U0BOB]
databases:
  crm:
    sensitive:
      email: hash
      customers.phone: scramble
grants:
  - database: crm
    tables: [customers]
  - to: [analysts]
    database: crm
    tables: [customers]
    columns: [email]
`;

  it('lists every mistake of shape at once, by entry and field', () => {
    const issues = issuesOf(SHAPE_MISTAKES);
    expect(issues).toHaveLength(5);
    expect(issues).toEqual(
      expect.arrayContaining([
        { entry: 'principals.analysts', field: '', message: expect.stringContaining('"slack_user"') },
        // The key itself is at fault, with the form it should have.
        { entry: 'databases.crm', field: 'sensitive.email', message: expect.stringContaining('table.column pattern') },
        { entry: 'databases.crm', field: 'sensitive.customers.phone', message: expect.stringMatching(/hash.*redact/) },
        { entry: 'grants[0]', field: 'to', message: expect.stringContaining('expected array') },
        { entry: 'grants[1]', field: 'columns.0', message: expect.stringContaining('table.column') },
      ]),
    );
  });

  const REFERENCE_MISTAKES = `
principals:
  analysts: { slack_users: [U0ALICE] }
  nobody: {}
databases:
  crm:
    show_in: [analysts, ghosts]
  warehouse: {}
grants:
  - to: [analysts, finance_team]
    database: crm
    tables: ["*"]
  - to: [analysts]
    database: payroll
    tables: [salaries]
`;

  it('lists every name that refers to nothing, and every empty set, at once', () => {
    expect(issuesOf(REFERENCE_MISTAKES)).toEqual([
      { entry: 'principals.nobody', field: '', message: 'names no user, group, channel or guild' },
      {
        entry: 'databases.crm',
        field: 'show_in.1',
        message: "no principal set 'ghosts' (sets: analysts, nobody)",
      },
      {
        entry: 'databases.warehouse',
        field: '',
        message: "no database 'warehouse' is configured (configured databases: crm, finance)",
      },
      { entry: 'grants[0]', field: 'to.1', message: "no principal set 'finance_team' (sets: analysts, nobody)" },
      {
        entry: 'grants[1]',
        field: 'database',
        message: "no database 'payroll' is configured (configured databases: crm, finance)",
      },
    ]);
  });

  it('puts every issue in the message, each on its own line, naming TALLY_POLICY', () => {
    let message = '';
    try {
      parsePolicy(REFERENCE_MISTAKES, 'policy.yaml', DATABASES);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('The access policy policy.yaml (TALLY_POLICY) is invalid');
    expect(message).toContain("\n  databases.crm, show_in.1: no principal set 'ghosts'");
    expect(message).toContain('\n  principals.nobody: names no user, group, channel or guild');
  });

  it('lists mistakes of shape and of reference together, in one file', () => {
    const both = `
principals:
  analysts: { slack_users: [U0ALICE], slack_user: [U0BOB] }
  nobody: {}
databases:
  crm:
    sensitive: { customers.phone: scramble }
    show_in: [ghosts]
grants:
  - { to: [finance_team], database: payroll, tables: [customers] }
  - { database: crm, tables: [customers] }
`;
    expect(placesOf(both)).toEqual(
      expect.arrayContaining([
        'principals.analysts | ',
        'databases.crm | sensitive.customers.phone',
        'grants[1] | to',
        'databases.crm | show_in.0',
        'grants[0] | to.0',
        'grants[0] | database',
        'principals.nobody | ',
      ]),
    );
  });

  it('refuses malformed YAML as a whole file, with where the parser stopped', () => {
    const issues = issuesOf('principals:\n  analysts: [U0ALICE\n  data_room: {');
    expect(issues).toEqual([{ entry: '(file)', field: '', message: expect.stringMatching(/line \d+/) }]);
  });

  it('refuses a missing file as a whole file', async () => {
    const path = join(folder, 'nowhere.yaml');
    await expect(loadPolicy(path, DATABASES)).rejects.toMatchObject({
      issues: [{ entry: '(file)', field: '', message: expect.stringContaining('ENOENT') }],
    });
  });

  it('refuses an empty file: it names no principals', () => {
    expect(placesOf('')).toEqual(['principals | ']);
  });

  // YAML would read an unquoted Discord id as a double, rounding it (…001 to …000), and grant the wrong role.
  it('keeps every digit of an unquoted Discord id, or refuses it', () => {
    let roles: string[] | undefined;
    try {
      roles = parsePolicy('principals:\n  team: { discord_roles: [1300000000000000001] }\n', 'policy.yaml', DATABASES)
        .principals.team?.discord_roles;
    } catch (error) {
      if (!(error instanceof PolicyFileError)) throw error;
      return; // refused: fine
    }
    expect(roles).toEqual(['1300000000000000001']);
  });
});
