/**
 * The access policy against names read another way than plainly (policed-database.test.ts has the plain ones): a
 * table named as a string in SQLite; tables of another schema the connector may read (MariaDB, PostgreSQL); names as
 * PostgreSQL folds them, with their schema or database; and what PostgreSQL alone could show past the masking views
 * (the statement as run, with the pseudonym key; a table's row type, with every column).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.js';
import { MysqlDatabase } from '../../src/db/mysql/mysql-database.js';
import { PostgresDatabase } from '../../src/db/postgres/postgres-database.js';
import { SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import { resolveAccess } from '../../src/policy/access.js';
import { policedDatabase } from '../../src/policy/policed-database.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import type { Database } from '../../src/ports/database.js';
import { createPolicyDatabases, type PolicyDatabases, RAW_CONTACTS } from '../support/policy-databases.js';
import { crmAccessOf, KEY, METADATA_HINT, pseudonym, refusalOf, slackUser } from '../support/policy-grants.js';
import { LIMITS } from '../support/sample-databases.js';

const logger = createLogger({ level: 'silent' });

let databases: PolicyDatabases;

beforeAll(async () => {
  databases = await createPolicyDatabases();
});
afterAll(() => databases?.drop());

const schemaOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/** The outcome of `sql` as the person would see it: rows as JSON, or the error's text. */
const outcomeOf = (db: Database, sql: string) =>
  db.query(sql).then(
    (result) => JSON.stringify(result.rows),
    (error: unknown) => String(error),
  );

describe('SQLite', () => {
  // SQLite reads a single-quoted string where only a name may stand as that name (`FROM 'customers'`): the
  // statement check must take it for the table, or the raw rows would come back.
  it('a table named as a string is masked or refused like any other', async () => {
    const inner = await SqliteDatabase.open({ name: 'crm', path: databases.sqlitePath, limits: LIMITS });
    try {
      const analyst = policedDatabase(inner, { access: crmAccessOf('U0ANALYST'), pseudonymKey: KEY });
      const support = policedDatabase(inner, { access: crmAccessOf('U0SUPPORT'), pseudonymKey: KEY });
      // What each statement must not reveal: raw contacts, the denied tenures, the tickets of an ungranted table.
      for (const [db, sql, secret] of [
        [analyst, "SELECT * FROM 'customers'", /@example\.com|\+1-202/],
        [analyst, "SELECT tenure FROM 'customers'", /\[12\]/],
        [support, "SELECT * FROM 'tickets'", /billing/],
      ] as const) {
        expect(await outcomeOf(db, sql), sql).not.toMatch(secret);
      }
    } finally {
      await inner.close();
    }
  });
});

// A table of another schema the connector may read (DATABASE_SCHEMAS_<NAME>) cannot be masked by views named like
// its tables: `*` does not grant it, and where a grant names it, a masked column keeps it from being read.
describe.each([
  {
    dialect: 'MariaDB',
    finance: () => schemaOf(databases.financeUrl),
    open: (finance: string) =>
      MysqlDatabase.connect({ name: 'crm', url: databases.crmUrl, schemas: [finance], limits: LIMITS, logger }),
  },
  {
    dialect: 'PostgreSQL',
    finance: () => 'finance',
    open: (finance: string) =>
      PostgresDatabase.connect({ name: 'crm', url: databases.postgresUrl, schemas: [finance], limits: LIMITS, logger }),
  },
])('$dialect', ({ finance: financeOf, open }) => {
  it('another schema is read only when granted by name, and never with a masked column', async () => {
    const finance = financeOf();
    const accessOf = (grants: string, sensitive = '{ crm: { sensitive: { "*.salary": redact } } }') => {
      const policy = parsePolicy(
        `
principals: { analysts: { slack_users: [U0ANALYST] } }
databases: ${sensitive}
grants: [{ to: [analysts], database: crm, tables: ${grants} }]
`,
        'policy.yaml',
        ['crm'],
      );
      const access = resolveAccess(policy, slackUser('U0ANALYST')).databases.get('crm');
      if (!access) throw new Error('crm is not granted');
      return policedDatabase(inner, { access, pseudonymKey: KEY });
    };
    const inner = await open(finance);
    try {
      const sql = `SELECT name, salary FROM ${finance}.salaries ORDER BY name`;
      // The connector alone reads the salaries: what refuses them below is the policy.
      expect((await inner.query(sql)).rows).toHaveLength(2);
      await expect(accessOf('["*"]').query(sql)).rejects.toThrow(`table ${finance}.salaries is not granted to you`);
      await expect(accessOf(`["*", "${finance}.*"]`).query(sql)).rejects.toThrow(
        /salary is masked or not granted to you.*DATABASE_URL_<NAME>/s,
      );
      expect((await accessOf(`["${finance}.*"]`, '{}').query(sql)).rows).toEqual([
        ['Frank Hale', 412000],
        ['Grace Kim', 238500],
      ]);
    } finally {
      await inner.close();
    }
  });
});

describe('PostgreSQL', () => {
  let inner: Database;
  let analyst: Database;
  let support: Database;

  beforeAll(async () => {
    inner = await PostgresDatabase.connect({
      name: 'crm',
      url: databases.postgresUrl,
      schemas: ['finance'],
      limits: LIMITS,
      logger,
    });
    analyst = policedDatabase(inner, { access: crmAccessOf('U0ANALYST'), pseudonymKey: KEY });
    support = policedDatabase(inner, { access: crmAccessOf('U0SUPPORT'), pseudonymKey: KEY });
  });
  afterAll(() => inner?.close());

  it('reads a table named in any case, or with ONLY, as its masked view', async () => {
    const masked = JSON.stringify([[pseudonym('ann.lee@example.com'), null]]);
    for (const sql of [
      'SELECT EMAIL, PHONE FROM CUSTOMERS WHERE ID = 1',
      'SELECT "email", "phone" FROM "customers" WHERE id = 1',
      'SELECT Email, Phone FROM Customers c WHERE C.id = 1',
      'SELECT email, phone FROM ONLY customers WHERE id = 1',
    ]) {
      expect(await outcomeOf(analyst, sql), sql).toBe(masked);
    }
  });

  it('refuses a denied column or table however it is spelt', async () => {
    for (const sql of [
      'SELECT TENURE FROM Customers',
      'SELECT "tenure" FROM customers',
      'SELECT c."tenure" FROM customers c',
    ]) {
      expect(await refusalOf(analyst, sql), sql).toMatch(/^column customers\.tenure is not granted to you/);
    }
    for (const sql of ['SELECT * FROM TICKETS', 'SELECT * FROM "tickets"', 'SELECT * FROM Public.Tickets']) {
      expect(await refusalOf(support, sql), sql).toMatch(/^table tickets is not granted to you/);
    }
  });

  it('refuses a masked table named with its schema, or its database and schema', async () => {
    const database = schemaOf(databases.postgresUrl);
    for (const sql of [
      'SELECT * FROM PUBLIC.CUSTOMERS',
      'SELECT * FROM "public"."customers"',
      `SELECT * FROM ${database}.public.customers`,
      'SELECT c.id FROM customers c WHERE c.id IN (SELECT r.id FROM public.customers r)',
    ]) {
      expect(await refusalOf(analyst, sql), sql).toMatch(/^customers is masked for you.*name it without its schema/);
    }
  });

  it('refuses another schema however it is spelt', async () => {
    for (const sql of [
      'SELECT * FROM FINANCE.SALARIES',
      'SELECT * FROM "finance"."salaries"',
      `SELECT * FROM ${schemaOf(databases.postgresUrl)}.finance.salaries`,
      'SELECT (SELECT max(finance.salaries.salary) FROM finance.salaries) AS top',
    ]) {
      const message = await refusalOf(analyst, sql);
      expect(message, sql).toMatch(/is not granted to you.*Tables you may read here: customers, tickets\./);
      expect(message).not.toMatch(/Frank Hale|412000/);
    }
  });

  it('refuses what would show the statement as run, with the pseudonym key', async () => {
    // Run as the analyst asked, current_query() would return the masking views, key and all.
    const message = await refusalOf(analyst, 'SELECT current_query() AS q, email FROM customers');
    expect(message).toMatch(/^current_query\(\) is not available under the access policy/);
    expect(message).not.toContain(KEY);
    // Idle connections of the pool show their last statement there.
    expect(await refusalOf(analyst, 'SELECT query FROM pg_stat_activity')).toContain(METADATA_HINT);
  });

  it('refuses a table used as a type, whose columns are the whole table', async () => {
    for (const sql of [
      'SELECT (NULL::customers).*',
      'SELECT (NULL::CUSTOMERS).*',
      'SELECT (CAST(NULL AS customers)).*',
      'SELECT json_populate_record(NULL::customers, row_to_json(c)) FROM customers c',
    ]) {
      expect(await refusalOf(analyst, sql), sql).toMatch(/^customers as a type is not available/);
    }
  });

  it("reads through the masking views in PostgreSQL's own syntax: WITH, DISTINCT ON, FILTER, LATERAL", async () => {
    const first = await analyst.query(
      'SELECT DISTINCT ON (c.segment) c.segment, c.email FROM customers c ORDER BY c.segment, c.id',
    );
    expect(first.rows).toEqual([
      ['business', pseudonym('carol.diaz@example.com')],
      ['retail', pseudonym('ann.lee@example.com')],
    ]);
    const counts = await analyst.query(
      `WITH x AS (SELECT email, phone FROM customers)
       SELECT count(DISTINCT x.email) AS people, count(*) FILTER (WHERE x.phone IS NULL) AS no_phone FROM x`,
    );
    expect(counts.rows.map((row) => row.map(Number))).toEqual([[5, 5]]);
    const lateral = await analyst.query(
      `SELECT c.id, t.topic FROM customers c
         CROSS JOIN LATERAL (SELECT t.topic FROM tickets t WHERE t.email = c.email ORDER BY t.id LIMIT 1) t ORDER BY c.id`,
    );
    expect(lateral.rows).toEqual([
      [1, 'billing'],
      [2, 'billing'],
      [3, 'outage'],
      [4, 'outage'],
    ]);
  });

  it('still reads what only looks like the refused forms: aliases, casts to plain types, value functions', async () => {
    const result = await analyst.query(
      `SELECT c.id::text AS id, CAST(c.segment AS varchar(20)) AS segment, pg_typeof(c.email)::text AS type,
              s.n FROM customers AS c, generate_series(1, 1) AS s(n) WHERE c.id = 2`,
    );
    expect(result.rows).toEqual([['2', 'retail', 'text', 1]]);
    for (const raw of RAW_CONTACTS) expect(JSON.stringify(result.rows)).not.toContain(raw);
  });
});
