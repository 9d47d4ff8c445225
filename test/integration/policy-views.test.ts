/**
 * The database as the wall (`tally policy apply` / `check`), on real MariaDB and PostgreSQL: tally's own account is
 * read-only; apply makes a schema of views and a login per view profile; a person's statements then run as their
 * login, so the statements that got around tally's rewrite (a WITH nested in a subquery) read only the views; the
 * logins reach neither the base tables nor the pseudonym key (nor the view definitions on MariaDB); DataFrames loaded
 * into a real kernel come through the login too; and whatever is
 * missing or outdated stops start-up with the command that fixes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseSettings } from '../../src/base/config-types.js';
import { PolicyViewsError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { MysqlDatabase } from '../../src/db/mysql/mysql-database.js';
import { openPlainConnection } from '../../src/db/plain-connection.js';
import { PostgresDatabase } from '../../src/db/postgres/postgres-database.js';
import { checkPolicyViews } from '../../src/policy/check-policy-views.js';
import { policedDatabase } from '../../src/policy/policed-database.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import { openPolicyViews } from '../../src/policy/policy-views.js';
import { profileUrl } from '../../src/policy/profile-login.js';
import type { Database } from '../../src/ports/database.js';
import { cleanUp } from '../support/clean-up.js';
import { createTestAccount } from '../support/mariadb.js';
import { CUSTOMERS, createPolicyDatabases, type PolicyDatabases, RAW_CONTACTS } from '../support/policy-databases.js';
import { crmAccessOf, KEY, POLICY, pseudonym } from '../support/policy-grants.js';
import { applyLogins, dropLogins, openLogins, POLICY_SECRET } from '../support/policy-logins.js';
import { createTestRole } from '../support/postgres.js';
import { LIMITS } from '../support/sample-databases.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

const logger = createLogger({ level: 'silent' });
const SECRET = POLICY_SECRET;

let databases: PolicyDatabases;
let fixture: TestSandbox;
beforeAll(async () => {
  databases = await createPolicyDatabases();
  fixture = await startTestSandbox();
});
afterAll(() =>
  cleanUp(
    () => fixture?.close(),
    () => databases?.drop(),
  ),
);

const databaseOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

interface Server {
  dialect: 'MariaDB' | 'PostgreSQL';
  /** tally's own read-only account on the crm tables, and how to drop it. */
  runtime(): Promise<{ url: string; drop(): Promise<void> }>;
  adminUrl(): string;
  open(url: string): Promise<Database>;
}

const servers: Server[] = [
  {
    dialect: 'MariaDB',
    async runtime() {
      const account = await createTestAccount('tally_ro', [`SELECT ON \`${databaseOf(databases.crmUrl)}\`.*`]);
      return { url: account.url(databaseOf(databases.crmUrl)), drop: () => account.drop() };
    },
    adminUrl: () => databases.crmUrl,
    open: (url) => MysqlDatabase.connect({ name: 'crm', url, limits: LIMITS, logger }),
  },
  {
    dialect: 'PostgreSQL',
    async runtime() {
      const database = databaseOf(databases.postgresUrl);
      const role = await createTestRole('tally_ro', {
        grants: [
          { grant: 'USAGE ON SCHEMA public', database },
          { grant: 'SELECT ON ALL TABLES IN SCHEMA public', database },
        ],
      });
      return { url: role.url(database), drop: () => role.drop() };
    },
    adminUrl: () => databases.postgresUrl,
    open: (url) => PostgresDatabase.connect({ name: 'crm', url, limits: LIMITS, logger }),
  },
];

/** The statements that read raw values through tally's rewrite on MariaDB (issue 33). */
const HOSTILE = [
  'SELECT * FROM (WITH x AS (SELECT * FROM customers) SELECT email, phone FROM x) t',
  'SELECT * FROM (WITH customers AS (SELECT * FROM customers) SELECT email, phone FROM customers) t',
  'SELECT (WITH x AS (SELECT * FROM customers) SELECT MAX(email) FROM x) AS e',
  "SELECT COUNT(*) AS n FROM tickets WHERE EXISTS (WITH x AS (SELECT * FROM customers) SELECT 1 FROM x WHERE x.email LIKE '%@example.com')",
];

describe.each(servers)('$dialect', (server) => {
  let runtime: { url: string; drop(): Promise<void> };
  let settings: DatabaseSettings;
  const made: string[] = [];
  const opened: Database[] = [];

  beforeAll(async () => {
    runtime = await server.runtime();
    settings = { name: 'crm', url: runtime.url };
  });
  afterAll(() =>
    cleanUp(
      () => dropLogins(server.adminUrl(), made, settings),
      () => Promise.all(opened.map((database) => database.close())),
      () => runtime?.drop(),
    ),
  );

  const apply = async (dryRun = false, policy = POLICY) => {
    const applied = await applyLogins(settings, server.adminUrl(), { dryRun, policy });
    if (!dryRun) made.push(...applied.profiles);
    return applied;
  };

  it('before apply, the rewrite alone masks and start-up says so once', async () => {
    expect(await checkPolicyViews(settings, POLICY, SECRET)).toMatchObject({ state: 'rewrite only' });
    const said: string[] = [];
    const views = await openPolicyViews({
      databases: [settings],
      policy: POLICY,
      secret: SECRET,
      limits: LIMITS,
      logger,
      say: (line) => said.push(line),
    });
    expect(views.size).toBe(0);
    expect(said).toEqual([expect.stringMatching(/^warning: crm: the access policy is enforced by tally alone/)]);
  });

  it('--dry-run prints the statements with every secret as …, and makes nothing', async () => {
    const { output, profiles } = await apply(true);
    expect(output).toMatch(/CREATE (ALGORITHM=TEMPTABLE SQL SECURITY DEFINER )?VIEW/);
    expect(output).not.toContain(KEY);
    expect(output).toContain("'…'");
    expect(profiles.length).toBeGreaterThan(0);
    expect(await checkPolicyViews(settings, POLICY, SECRET)).toMatchObject({ state: 'rewrite only' });
  });

  it('apply makes a login per view profile, and the check passes', async () => {
    const { profiles, output } = await apply();
    // analysts, support, and someone in both (whose grants are the analysts' here): two distinct profiles.
    expect(profiles).toHaveLength(2);
    expect(output).toMatch(/crm: made 2 view profiles/);
    const state = await checkPolicyViews(settings, POLICY, SECRET);
    expect(state).toMatchObject({ state: 'views' });
    // Idempotent: again, the same profiles and a passing check.
    expect((await apply()).profiles.sort()).toEqual([...profiles].sort());
    expect(await checkPolicyViews(settings, POLICY, SECRET)).toMatchObject({ state: 'views' });
  });

  it('a person reads through their login: nested WITHs see only the views, pseudonyms as before', async () => {
    const crm = await openLogins(settings);
    const inner = await server.open(runtime.url);
    opened.push(inner, { close: () => crm.close() } as unknown as Database);
    const analyst = policedDatabase(inner, { access: crmAccessOf('U0ANALYST'), pseudonymKey: KEY, views: crm });
    for (const sql of HOSTILE) {
      const outcome = await analyst.query(sql).then(
        (result) => JSON.stringify(result.rows),
        (error: unknown) => String(error),
      );
      for (const raw of RAW_CONTACTS) expect(outcome, sql).not.toContain(raw);
    }
    const nested = await analyst.query(HOSTILE[0] as string);
    expect(nested.access?.enforcedBy).toMatch(/^database login tally_p_[0-9a-f]{12}$/);
    const emails = nested.rows.map((row) => String(row[0])).sort();
    expect(emails).toEqual(CUSTOMERS.map(([, , email]) => pseudonym(email)).sort());
    expect(nested.rows.every((row) => row[1] === null)).toBe(true);
    // The LIKE oracle finds nothing: the views hold pseudonyms, never addresses.
    const oracle = await analyst.query(HOSTILE[3] as string);
    expect(Number(oracle.rows[0]?.[0])).toBe(0);
    // load_dataframe reads through the login too, and the provenance says what masked the rows.
    const kernel = await fixture.sandbox.acquire(`policy-views-${server.dialect}`);
    const provenance = await analyst.extract(HOSTILE[0] as string, kernel, 'nested');
    expect(provenance.masked).toEqual([
      { column: 'customers.email', treatment: 'hash' },
      { column: 'customers.phone', treatment: 'redact' },
    ]);
    expect(provenance.maskedBy).toMatch(/^database login tally_p_/);
    const frame = await kernel.run('print(nested.to_csv())\nprint(nested.attrs["provenance"])');
    expect(frame.error, frame.error?.traceback).toBeUndefined();
    expect(frame.stdout).toContain(pseudonym('eve.moss@example.com'));
    for (const raw of RAW_CONTACTS) expect(frame.stdout).not.toContain(raw);
    expect(frame.stdout).not.toContain(KEY);
    // tenure is not granted: the view has no such column, whatever the statement does.
    const tenure = await analyst.query('SELECT * FROM (WITH x AS (SELECT * FROM customers) SELECT * FROM x) t');
    expect(tenure.columns.map((column) => column.name)).not.toContain('tenure');
  });

  it("a profile login reaches neither the base tables, the key, nor the views' definitions", async () => {
    const state = await checkPolicyViews(settings, POLICY, SECRET);
    if (state.state !== 'views') throw new Error(`not applied: ${JSON.stringify(state)}`);
    const profile = state.profiles[0];
    if (!profile) throw new Error('no profile');
    const login = await openPlainConnection(profileUrl(settings.url, profile.name, SECRET));
    const attempt = (sql: string) =>
      login.query(sql).then(
        (rows) => JSON.stringify(rows),
        (error: Error) => `refused: ${error.message}`,
      );
    try {
      const base = databases[server.dialect === 'MariaDB' ? 'crmUrl' : 'postgresUrl'];
      const schema = server.dialect === 'MariaDB' ? databaseOf(base) : 'public';
      const q = (name: string) => (server.dialect === 'MariaDB' ? `\`${name}\`` : `"${name}"`);
      expect(await attempt(`SELECT * FROM ${q(schema)}.customers`)).toMatch(/^refused: /);
      expect(await attempt('SELECT * FROM tally_policy.pseudonym_keys')).toMatch(/^refused: /);
      const looks =
        server.dialect === 'MariaDB'
          ? [
              `SHOW CREATE VIEW ${q(profile.name)}.customers`,
              'SELECT * FROM information_schema.VIEWS',
              'SHOW FULL PROCESSLIST',
              'SELECT * FROM information_schema.PROCESSLIST',
            ]
          : [
              'SELECT * FROM pg_views',
              `SELECT pg_get_viewdef('${profile.name}.customers'::regclass, true) AS d`,
              'SELECT query FROM pg_stat_activity',
            ];
      for (const sql of looks) {
        const seen = await attempt(sql);
        expect(seen, sql).not.toContain(KEY);
        for (const raw of RAW_CONTACTS) expect(seen, sql).not.toContain(raw);
      }
      if (server.dialect === 'MariaDB') {
        expect(await attempt(`SHOW CREATE VIEW ${q(profile.name)}.customers`)).toMatch(/^refused: /);
      }
    } finally {
      await login.close();
    }
  });

  it('a missing or outdated profile stops start-up (exit 2) until apply runs again', async () => {
    const state = await checkPolicyViews(settings, POLICY, SECRET);
    if (state.state !== 'views') throw new Error('not applied');
    const victim = state.profiles[0]?.name ?? '';
    const admin = await openPlainConnection(server.adminUrl());
    try {
      const drop = server.dialect === 'MariaDB' ? `DROP DATABASE \`${victim}\`` : `DROP SCHEMA "${victim}" CASCADE`;
      await admin.query(drop);
    } finally {
      await admin.close();
    }
    const start = openPolicyViews({ databases: [settings], policy: POLICY, secret: SECRET, limits: LIMITS, logger });
    const error = await start.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(PolicyViewsError);
    expect(exitCodeOf(error)).toBe(2);
    expect(String((error as Error).message)).toMatch(
      new RegExp(`${victim}.*\\n.*tally policy apply --admin-url URL --db crm`, 's'),
    );

    // A policy that grants more than what was applied: its new profile was never made.
    const wider = parsePolicy(
      `${JSON.stringify({ ...POLICY, grants: [...POLICY.grants, { to: ['support'], database: 'crm', tables: ['customers'], columns: ['customers.tenure'] }] })}`,
      'policy.json',
      ['crm', 'finance'],
    );
    await apply();
    expect(await checkPolicyViews(settings, POLICY, SECRET)).toMatchObject({ state: 'views' });
    const outdated = await checkPolicyViews(settings, wider, SECRET);
    expect(outdated).toMatchObject({ state: 'problems' });
    expect(JSON.stringify(outdated)).toMatch(/was not made: the policy or the tables changed since/);
    // Applying the wider policy removes the profile no one has any more.
    const widened = await apply(false, wider);
    expect(widened.removed.length).toBeGreaterThan(0);
    expect(await checkPolicyViews(settings, wider, SECRET)).toMatchObject({ state: 'views' });
  });
});
