/**
 * The access policy from the command line, as an operator meets it: `tally slack` refusing a bad policy file with
 * every problem at once (exit 2), a policy that pseudonymises without its secret, `tally policy explain` for three
 * people against a real MariaDB, and `tally ask` for a console user the policy grants nothing.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, say, startScriptedModelServer } from '../../src/demo/scripted-model-server.js';
import { pseudonymKey } from '../../src/policy/masked-view.js';
import { dropProfileStatements } from '../../src/policy/profile-sql.js';
import { adminConnection, createTestDatabase, type TestDatabase } from '../support/mariadb.js';
import { addCrmTables, CUSTOMERS, createFinanceDatabase, RAW_CONTACTS } from '../support/policy-databases.js';
import { runTally } from '../support/run-tally.js';
import { startSlackStandIn } from '../support/slack/slack-stand-in.js';
import { startTallyProcess } from '../support/tally-process.js';

let home: string;
let crm: TestDatabase;
let finance: TestDatabase;

const tally = (args: string[], env: Record<string, string>) =>
  runTally(args, { TALLY_HOME: home, LOG_LEVEL: 'silent', ...env });

async function policyFile(name: string, text: string): Promise<string> {
  const path = join(home, name);
  await writeFile(path, text);
  return path;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tally-policy-cli-'));
  crm = await createTestDatabase('tally_policy_cli');
  await addCrmTables(crm.name);
  finance = await createFinanceDatabase();
}, 60_000);

afterAll(async () => {
  await crm?.drop();
  await finance?.drop();
  await rm(home, { recursive: true, force: true });
});

const SLACK = {
  SLACK_BOT_TOKEN: 'xoxb-unused',
  SLACK_APP_TOKEN: 'xapp-unused',
  LLM_BASE_URL: 'http://127.0.0.1:9/v1',
};

describe('the access policy at start-up', () => {
  it('stops tally slack with exit code 2, naming every bad entry and field of the policy file at once', async () => {
    const path = await policyFile(
      'bad.yaml',
      `
principals:
  analysts: { slack_users: [U1], slack_user: [U2] }
  "bad name": { slack_users: [U3] }
  nobody: {}
databases:
  telco:
    sensitive: { email: hash, customers.phone: scramble }
    show_in: [ghosts]
  warehouse: {}
grants:
  - { to: [analysts, finance_team], database: telco, tables: ["*"], columns: [email] }
  - { database: payroll, tables: [salaries] }
`,
    );
    const result = await tally(['slack'], { ...SLACK, TALLY_POLICY: path });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe(`tally: The access policy ${path} (TALLY_POLICY) is invalid; fix these entries:`);
    const problems = lines.slice(1).map((line) => line.trim().replace(/: .*/, ''));
    expect(problems.sort()).toEqual(
      [
        'principals.analysts',
        'principals.bad name',
        'principals.nobody',
        'databases.telco, sensitive.email',
        'databases.telco, sensitive.customers.phone',
        'databases.telco, show_in.0',
        'databases.warehouse',
        'grants[0], to.1',
        'grants[0], columns.0',
        'grants[1], to',
        'grants[1], database',
      ].sort(),
    );
    expect(result.stderr).toContain("no database 'payroll' is configured (configured databases: telco)");
  }, 120_000);

  it('stops when the policy pseudonymises columns and TALLY_PSEUDONYM_KEY is not set', async () => {
    const path = await policyFile(
      'hash.yaml',
      `
principals: { analysts: { slack_users: [U1] } }
databases: { telco: { sensitive: { "*.customerID": hash } } }
grants: [{ to: [analysts], database: telco, tables: ["*"] }]
`,
    );
    const result = await tally(['slack'], { ...SLACK, TALLY_POLICY: path });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('TALLY_PSEUDONYM_KEY');
    expect(result.stderr).toContain('the same on every replica');
  }, 120_000);
});

describe('tally slack without a policy', () => {
  it('says once, at start-up, that every user reads every table', async () => {
    const slack = await startSlackStandIn({ channels: [{ id: 'C1ANALYTICS', name: 'analytics' }] });
    const child = startTallyProcess(['slack'], {
      TALLY_HOME: home,
      TALLY_INSTANCE: `policy-cli-${process.pid}`,
      DATABASE_URL: crm.url,
      TALLY_REQUIRE_READONLY: 'false',
      TALLY_SANDBOX_POOL_SIZE: '0',
      TALLY_HTTP_PORT: '0',
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_APP_TOKEN: slack.appToken,
      SLACK_API_URL: slack.apiUrl,
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      LOG_LEVEL: 'info',
    });
    try {
      await slack.waitFor(() => child.output().includes('tally is connected'), 90_000);
      const warnings = child
        .output()
        .match(/no access policy \(TALLY_POLICY\): every user who can reach tally reads every table/g);
      expect(warnings).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
      await child.exited;
      await slack.close();
    }
  }, 120_000);
});

describe('tally policy explain', () => {
  let env: Record<string, string>;

  beforeAll(async () => {
    const path = await policyFile(
      'team.yaml',
      `
principals:
  analysts: { slack_usergroups: [S1ANALYSTS] }
  churn-readers: { slack_users: [U2BOB] }
  finance-team: { slack_users: [U4FINN] }
  finance-room: { slack_channels: [C3FINANCE] }
databases:
  ${crm.name}:
    sensitive: { customers.email: hash, tickets.email: hash, customers.phone: redact }
  finance:
    show_in: [finance-room]
grants:
  - { to: [analysts], database: ${crm.name}, tables: ["*"], columns: ["customers.*", "tickets.id", "tickets.email"] }
  - { to: [churn-readers], database: ${crm.name}, tables: [tickets] }
  - { to: [finance-team], database: finance, tables: ["*"] }
`,
    );
    env = { DATABASE_URL: crm.url, DATABASE_URL_FINANCE: finance.url, TALLY_POLICY: path };
  });

  it('shows an analyst every column of her grant, the masked ones with their rule, and what is not granted', async () => {
    const result = await tally(
      ['policy', 'explain', '--user', 'U1ANN', '--groups', 'S1ANALYSTS', '--channel', 'C1ANALYTICS'],
      env,
    );
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toContain('slack user U1ANN, groups S1ANALYSTS, in channel C1ANALYTICS');
    expect(lines).toContain('in principal sets: analysts (slack_usergroups S1ANALYSTS)');
    expect(lines).toContain(`database ${crm.name}: may read, by grants[0] via analysts (slack_usergroups S1ANALYSTS)`);
    expect(lines).toContain(
      `  customers: id, name, email [pseudonymised: databases.${crm.name}.sensitive 'customers.email'], phone [redacted (always NULL): databases.${crm.name}.sensitive 'customers.phone'], segment, tenure`,
    );
    expect(lines).toContain(`  tickets: id, email [pseudonymised: databases.${crm.name}.sensitive 'tickets.email']`);
    expect(lines).toContain('    not granted: topic (grants[0].columns)');
    expect(lines).toContain('database finance: not granted (no grant names a set this person or place is in)');
  }, 120_000);

  it('shows a person granted one table that the others are not granted', async () => {
    const result = await tally(['policy', 'explain', '--user', 'U2BOB', '--channel', 'C1ANALYTICS'], env);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toContain(`database ${crm.name}: may read, by grants[1] via churn-readers (slack_users U2BOB)`);
    expect(lines).toContain(
      `  tickets: id, email [pseudonymised: databases.${crm.name}.sensitive 'tickets.email'], topic`,
    );
    expect(lines).toContain('  tables not granted: customers');
  }, 120_000);

  it('shows finance as granted but not shown outside its channel, and readable in it', async () => {
    const outside = await tally(['policy', 'explain', '--user', 'U4FINN', '--channel', 'C1ANALYTICS'], env);
    expect(outside.stdout).toContain(
      "database finance: granted, but not shown here: finance's results may be shown only in the channels of finance-room (databases.finance.show_in) and in direct messages",
    );
    const inside = await tally(['policy', 'explain', '--user', 'U4FINN', '--channel', 'C3FINANCE'], env);
    expect(inside.stdout.split('\n')).toContain('  salaries: name, title, salary');
    const dm = await tally(['policy', 'explain', '--user', 'U4FINN', '--dm'], env);
    expect(dm.stdout.split('\n')).toContain('  salaries: name, title, salary');
  }, 120_000);

  it('refuses unknown flags with the usage and exit code 2', async () => {
    const result = await tally(['policy', 'explain', '--person', 'U1'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown flag --person');
    expect(result.stderr).toContain('usage: tally policy explain --user ID');
  }, 60_000);
});

describe('tally ask under the access policy', () => {
  it('ends with not_granted and exit code 2 for a console user granted nothing, asking no model', async () => {
    const path = await policyFile(
      'console.yaml',
      `
principals: { analysts: { console_users: [analyst] } }
grants: [{ to: [analysts], database: ${crm.name}, tables: ["*"] }]
`,
    );
    const result = await tally(['ask', 'How many customers are there?', '--json'], {
      DATABASE_URL: crm.url,
      TALLY_POLICY: path,
      TALLY_CONSOLE_USER: 'visitor',
      // Nothing listens here: a model request would fail the run instead.
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      TALLY_REQUIRE_READONLY: 'false',
    });
    expect(result.code).toBe(2);
    const json = JSON.parse(result.stdout) as { outcome: string; message: string; modelCalls: number };
    expect(json).toMatchObject({ outcome: 'not_granted', modelCalls: 0 });
    expect(json.message).toContain('Not granted by the access policy: it grants you no data here');
  }, 120_000);
});

describe('tally policy apply and check', () => {
  let env: Record<string, string>;
  const SECRET = 'cli-secret-0123456789';

  beforeAll(async () => {
    const path = await policyFile(
      'views.yaml',
      `
principals:
  analysts: { console_users: [analyst] }
  support: { console_users: [helper] }
databases:
  ${crm.name}: { sensitive: { customers.email: hash, customers.phone: redact } }
grants:
  - { to: [analysts], database: ${crm.name}, tables: ["*"] }
  - { to: [support], database: ${crm.name}, tables: [customers], columns: [customers.id, customers.segment] }
`,
    );
    env = {
      DATABASE_URL: crm.url,
      TALLY_POLICY: path,
      TALLY_PSEUDONYM_KEY: SECRET,
      TALLY_REQUIRE_READONLY: 'false',
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    };
  });

  afterAll(async () => {
    // Profiles are named by their content, so the drops here remove exactly what this file made.
    const admin = await adminConnection();
    try {
      const [rows] = await admin.query('SELECT profile FROM tally_policy.profiles WHERE location = ?', [crm.name]);
      for (const { profile } of rows as Array<{ profile: string }>) {
        for (const statement of dropProfileStatements('mysql', profile)) await admin.query(statement);
      }
      await admin.query('DELETE FROM tally_policy.pseudonym_keys WHERE location = ?', [crm.name]);
    } finally {
      await admin.end();
    }
  });

  it('check says the rewrite alone masks before apply; --dry-run prints statements without secrets', async () => {
    const before = await tally(['policy', 'check'], env);
    expect(before.code).toBe(0);
    expect(before.stdout).toContain(`${crm.name}: tally's rewrite only`);
    const dry = await tally(['policy', 'apply', '--admin-url', crm.url, '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/CREATE USER '[^']+'@'%' IDENTIFIED BY '…';/);
    expect(dry.stdout).toContain(`${crm.name}: would make 2 view profiles in tally_policy`);
    expect(dry.stdout).not.toContain(pseudonymKey(SECRET, crm.name));
  }, 120_000);

  it('apply makes the logins, check passes, and a missing one stops tally ask with exit code 2', async () => {
    const applied = await tally(['policy', 'apply', '--admin-url', crm.url], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`${crm.name}: made 2 view profiles in tally_policy`);
    const check = await tally(['policy', 'check'], env);
    expect(check.code, check.stdout).toBe(0);
    expect(check.stdout).toContain(`${crm.name}: enforced by the database (2 view profiles, each checked)`);

    const victim = /^ {2}(tally_p_[0-9a-f]{12}): /m.exec(applied.stdout)?.[1] ?? '';
    const admin = await adminConnection();
    await admin.query(`DROP DATABASE \`${victim}\``);
    await admin.end();
    const broken = await tally(['policy', 'check'], env);
    expect(broken.code).toBe(2);
    expect(broken.stdout).toContain(victim);
    const ask = await tally(['ask', 'How many customers are there?'], { ...env, TALLY_CONSOLE_USER: 'analyst' });
    expect(ask.code).toBe(2);
    expect(ask.stderr).toContain('The database views of the access policy (TALLY_POLICY) do not match it');
    expect(ask.stderr).toContain(`tally policy apply --admin-url URL --db ${crm.name}`);

    const again = await tally(['policy', 'apply', '--admin-url', crm.url], env);
    expect(again.code).toBe(0);
    expect((await tally(['policy', 'check'], env)).code).toBe(0);
  }, 180_000);

  it("tally ask runs the model's hostile SQL as the analyst's login: pseudonyms reach the model, raw values never", async () => {
    const nested = 'SELECT * FROM (WITH x AS (SELECT * FROM customers) SELECT id, email, phone FROM x) t ORDER BY id';
    const model = await startScriptedModelServer({
      script: [
        callTool('triage', { verdict: 'answerable' }),
        callTool('run_sql', { sql: nested }),
        callTool('load_dataframe', { sql: nested, name: 'contacts' }),
        callTool('run_python', { code: 'print(contacts.to_csv())\nprint(contacts.attrs["provenance"])' }),
        say('The contacts are pseudonymised.'),
      ],
    });
    try {
      const result = await tally(['ask', 'List the customer contacts'], {
        ...env,
        TALLY_CONSOLE_USER: 'analyst',
        LLM_BASE_URL: model.url,
        TALLY_SANDBOX_POOL_SIZE: '0',
        TALLY_INSTANCE: `policy-cli-${process.pid}`,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(model.remainingSteps).toBe(0);
      const sent = JSON.stringify(model.chatRequests);
      const key = pseudonymKey(SECRET, crm.name);
      for (const [, , email] of CUSTOMERS) {
        expect(sent).not.toContain(email);
        expect(sent).toContain(createHash('sha256').update(`${key}${email}`).digest('hex').slice(0, 16));
      }
      for (const raw of RAW_CONTACTS) expect(result.stdout + result.stderr).not.toContain(raw);
      expect(sent).toMatch(/maskedBy.{0,10}database login tally_p_[0-9a-f]{12}/);
    } finally {
      await model.close();
    }
  }, 180_000);

  it('refuses apply without --admin-url, with the usage', async () => {
    const result = await tally(['policy', 'apply'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--admin-url is required');
    expect(result.stderr).toContain('tally policy apply --admin-url URL');
  }, 60_000);
});
