/**
 * What one person may read in one place: grants found by user, group, channel, role or guild on the platform the
 * message came from; a database with `show_in` hidden in other channels but not in a DM; and for each column
 * whether it reaches them raw, pseudonymised, redacted or not at all, with the rule that decides it.
 */
import { describe, expect, it } from 'vitest';
import { type Principal, resolveAccess, setMatches } from '../../src/policy/access.js';
import { parsePolicy } from '../../src/policy/policy-file.js';

const GUILD = '1300000000000000001';
const ROLE = '1300000000000000100';
const FINANCE_DISCORD_CHANNEL = '1300000000000000900';

const policy = parsePolicy(
  `
principals:
  alice: { slack_users: [U0ALICE] }
  analysts: { slack_usergroups: [S0ANALYSTS] }
  data_room: { slack_channels: [C0DATA] }
  discord_analysts: { discord_roles: ["${ROLE}"] }
  hq: { discord_guilds: ["${GUILD}"] }
  operators: { console_users: [ops] }
  finance_rooms: { slack_channels: [C0FINANCE], discord_channels: ["${FINANCE_DISCORD_CHANNEL}"] }
  alice_on_discord: { discord_users: [U0ALICE] }
databases:
  crm:
    sensitive:
      customers.email: hash
      tickets.email: hash
      customers.phone: redact
  finance:
    show_in: [finance_rooms]
grants:
  - to: [alice]
    database: crm
    tables: [customers]
    columns: [customers.id, customers.email, customers.phone, customers.segment]
  - to: [analysts]
    database: crm
    tables: [customers, tickets]
    raw: [customers.email]
  - { to: [data_room], database: crm, tables: [tickets] }
  - { to: [discord_analysts], database: crm, tables: ["*"] }
  - { to: [hq], database: finance, tables: [salaries] }
  - { to: [operators], database: crm, tables: ["cust*"] }
  - { to: [analysts], database: finance, tables: [salaries] }
  - { to: [alice_on_discord], database: finance, tables: ["*"] }
`,
  'policy.yaml',
  ['crm', 'finance'],
);

const inChannel = (channel: string) => ({ channel, dm: false });

function slack(userId: string, options: { groups?: string[]; channel?: string; dm?: boolean } = {}): Principal {
  return {
    platform: 'slack',
    userId,
    groups: options.groups ?? [],
    place: { channel: options.channel ?? 'C0GENERAL', dm: options.dm ?? false },
  };
}

function discord(userId: string, options: { roles?: string[]; channel?: string; guild?: string } = {}): Principal {
  return {
    platform: 'discord',
    userId,
    groups: options.roles ?? [],
    place: inChannel(options.channel ?? '1300000000000000555'),
    guild: options.guild ?? '1300000000000000002',
  };
}

/** Per database: the indexes of the grants that apply and why. */
function grantsOf(principal: Principal): Record<string, Array<{ index: number; via: string[] }>> {
  const { databases } = resolveAccess(policy, principal);
  return Object.fromEntries(
    [...databases].map(([name, access]) => [name, access.grants.map(({ index, via }) => ({ index, via }))]),
  );
}

describe('whose grants apply', () => {
  it('a Slack user, by id', () => {
    expect(grantsOf(slack('U0ALICE'))).toEqual({ crm: [{ index: 0, via: ['alice (slack_users U0ALICE)'] }] });
  });

  it('a Slack user group, by the groups the platform reported', () => {
    expect(grantsOf(slack('U0BOB', { groups: ['S0OTHER', 'S0ANALYSTS'], dm: true }))).toEqual({
      crm: [{ index: 1, via: ['analysts (slack_usergroups S0ANALYSTS)'] }],
      finance: [{ index: 6, via: ['analysts (slack_usergroups S0ANALYSTS)'] }],
    });
  });

  it('a Slack channel: anyone who writes there', () => {
    expect(grantsOf(slack('U0CAROL', { channel: 'C0DATA' }))).toEqual({
      crm: [{ index: 2, via: ['data_room (slack_channels C0DATA)'] }],
    });
  });

  it('a Discord role', () => {
    expect(grantsOf(discord('1300000000000000042', { roles: [ROLE] }))).toEqual({
      crm: [{ index: 3, via: [`discord_analysts (discord_roles ${ROLE})`] }],
    });
  });

  it('a Discord guild: anyone in it (here in a channel where finance may be shown)', () => {
    expect(grantsOf(discord('1300000000000000042', { guild: GUILD, channel: FINANCE_DISCORD_CHANNEL }))).toEqual({
      finance: [{ index: 4, via: [`hq (discord_guilds ${GUILD})`] }],
    });
  });

  it('a console user, by name', () => {
    const principal: Principal = { platform: 'console', userId: 'ops', groups: [], place: inChannel('console') };
    expect(grantsOf(principal)).toEqual({ crm: [{ index: 5, via: ['operators (console_users ops)'] }] });
  });

  it('nobody else: an unlisted person in an unlisted place reads nothing', () => {
    const access = resolveAccess(policy, slack('U0MALLORY', { groups: ['S0OTHER'] }));
    expect(access.databases.size).toBe(0);
    expect(access.hidden.size).toBe(0);
  });

  it('one platform only: a Slack user id listed under discord_users does not match on Slack', () => {
    const set = policy.principals.alice_on_discord;
    if (!set) throw new Error('the policy has no alice_on_discord set');
    expect(setMatches(set, slack('U0ALICE'))).toEqual([]);
    expect(setMatches(set, discord('U0ALICE'))).toEqual(['discord_users U0ALICE']);
    expect(grantsOf(slack('U0ALICE', { channel: 'C0FINANCE' }))).toEqual({
      crm: [{ index: 0, via: ['alice (slack_users U0ALICE)'] }],
    });
  });
});

describe('where a database may be shown (show_in)', () => {
  it('hides a database in a channel its show_in does not list, saying where it may be shown', () => {
    const access = resolveAccess(policy, slack('U0BOB', { groups: ['S0ANALYSTS'], channel: 'C0GENERAL' }));
    expect([...access.databases.keys()]).toEqual(['crm']);
    expect(Object.fromEntries(access.hidden)).toEqual({
      finance:
        "finance's results may be shown only in the channels of finance_rooms (databases.finance.show_in) and in direct messages",
    });
  });

  it('shows it in a listed channel and in a DM', () => {
    for (const place of [{ channel: 'C0FINANCE' }, { channel: 'D0BOB', dm: true }]) {
      const access = resolveAccess(policy, slack('U0BOB', { groups: ['S0ANALYSTS'], ...place }));
      expect([...access.databases.keys()].sort()).toEqual(['crm', 'finance']);
      expect(access.hidden.size).toBe(0);
    }
  });

  it('on Discord too: the guild grants finance, but only its listed channel shows it', () => {
    const elsewhere = resolveAccess(policy, discord('1300000000000000042', { guild: GUILD }));
    expect(elsewhere.databases.size).toBe(0);
    expect([...elsewhere.hidden.keys()]).toEqual(['finance']);
  });
});

describe('how each column reaches a person', () => {
  const alice = resolveAccess(policy, slack('U0ALICE')).databases.get('crm');
  const analyst = resolveAccess(policy, slack('U0BOB', { groups: ['S0ANALYSTS'] })).databases.get('crm');
  if (!alice || !analyst) throw new Error('crm is not granted to alice and the analysts');

  it('raw when granted and not sensitive, by the grant that names it', () => {
    expect(alice.column('customers', 'segment')).toEqual({ access: 'raw', rule: 'grants[0]' });
    expect(analyst.column('tickets', 'topic')).toEqual({ access: 'raw', rule: 'grants[1]' });
  });

  it('hashed or redacted when sensitive, by the sensitive entry', () => {
    expect(alice.column('customers', 'email')).toEqual({
      access: 'hash',
      rule: "databases.crm.sensitive 'customers.email'",
    });
    expect(alice.column('customers', 'phone')).toEqual({
      access: 'redact',
      rule: "databases.crm.sensitive 'customers.phone'",
    });
    expect(analyst.column('tickets', 'email')).toEqual({
      access: 'hash',
      rule: "databases.crm.sensitive 'tickets.email'",
    });
  });

  it('raw despite being sensitive when a grant lists it under raw', () => {
    expect(analyst.column('customers', 'email')).toEqual({ access: 'raw', rule: 'grants[1].raw' });
    expect(analyst.column('customers', 'phone')).toMatchObject({ access: 'redact' });
  });

  it('denied when the grant lists columns without it, or no grant names the table', () => {
    expect(alice.column('customers', 'tenure')).toEqual({ access: 'denied', rule: 'grants[0].columns' });
    expect(alice.column('customers', 'name')).toEqual({ access: 'denied', rule: 'grants[0].columns' });
    expect(alice.column('tickets', 'topic')).toEqual({ access: 'denied', rule: 'no grant names table tickets' });
  });

  it('tables by name or pattern, case-insensitively', () => {
    expect(alice.tableGrant('customers')?.index).toBe(0);
    expect(alice.tableGrant('tickets')).toBeUndefined();
    const operator = resolveAccess(policy, {
      platform: 'console',
      userId: 'ops',
      groups: [],
      place: inChannel('console'),
    }).databases.get('crm');
    expect(operator?.tableGrant('Customers')?.index).toBe(5);
    expect(operator?.tableGrant('customer_notes')?.index).toBe(5);
    expect(operator?.tableGrant('tickets')).toBeUndefined();
  });
});
