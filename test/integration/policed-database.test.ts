/**
 * The access policy enforced on real MariaDB and SQLite: a person sees only the tables and columns granted to
 * them; sensitive columns leave the database pseudonymised or NULL (in listings, query rows, and the DataFrames
 * loaded into a real kernel); anything else (ungranted tables and columns, metadata, the base table behind a mask,
 * another database) is refused with what may be read instead; and the pseudonym key never reaches a message.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MysqlDatabase } from '../../src/db/mysql-database.js';
import { SqliteDatabase } from '../../src/db/sqlite-database.js';
import { QueryFailedError, SqlRejectedError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { type Principal, resolveAccess } from '../../src/policy/access.js';
import { pseudonymKey } from '../../src/policy/masked-view.js';
import { policedDatabase } from '../../src/policy/policed-database.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import type { Database } from '../../src/ports/database.js';
import type { Kernel } from '../../src/ports/sandbox.js';
import { cleanUp } from '../support/clean-up.js';
import {
  CUSTOMERS,
  createPolicyDatabases,
  INJECTION,
  type PolicyDatabases,
  RAW_CONTACTS,
  SALARIES,
  TICKETS,
} from '../support/policy-databases.js';
import { LIMITS } from '../support/sample-databases.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

const KEY = pseudonymKey('secret', 'crm');
const logger = createLogger({ level: 'silent' });

/** The pseudonym worked out here, independently: 16 hex digits of SHA-256 over key and value. */
const pseudonym = (value: string) => createHash('sha256').update(`${KEY}${value}`).digest('hex').slice(0, 16);

const POLICY = parsePolicy(
  `
principals:
  analysts: { slack_users: [U0ANALYST] }
  support: { slack_users: [U0SUPPORT] }
databases:
  crm:
    sensitive:
      customers.email: hash
      tickets.email: hash
      customers.phone: redact
grants:
  - to: [analysts]
    database: crm
    tables: [customers, tickets]
    columns: [customers.id, customers.name, customers.email, customers.phone, customers.segment, "tickets.*"]
  - to: [support]
    database: crm
    tables: [customers]
    columns: [customers.id, customers.name, customers.email, customers.phone, customers.segment]
`,
  'policy.yaml',
  ['crm', 'finance'],
);

const slackUser = (userId: string): Principal => ({
  platform: 'slack',
  userId,
  groups: [],
  place: { channel: 'C0GENERAL', dm: false },
});

function crmAccessOf(userId: string) {
  const access = resolveAccess(POLICY, slackUser(userId)).databases.get('crm');
  if (!access) throw new Error(`crm is not granted to ${userId}`);
  return access;
}

/** The customers' columns the analysts may read, as the refusals list them. */
const READABLE_CUSTOMERS = 'id, name, email (pseudonymised), phone (redacted: always NULL), segment';
const METADATA_HINT = 'use the list_tables and describe_table tools';

/** Expected tickets per segment, from the fixture: customers joined to their tickets by e-mail. */
const TICKETS_PER_SEGMENT = (() => {
  const counts: Record<string, number> = {};
  for (const [, email] of TICKETS) {
    const customer = CUSTOMERS.find((row) => row[2] === email);
    if (customer) counts[customer[4]] = (counts[customer[4]] ?? 0) + 1;
  }
  return counts;
})();

let databases: PolicyDatabases;
let fixture: TestSandbox;
let kernel: Kernel;

beforeAll(async () => {
  databases = await createPolicyDatabases();
  fixture = await startTestSandbox();
  kernel = await fixture.sandbox.acquire('policed-database-test');
});
afterAll(() =>
  cleanUp(
    () => fixture?.close(),
    () => databases?.drop(),
  ),
);

const schemaOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

const implementations = [
  {
    dialect: 'mysql' as const,
    // The connector may read the finance schema too, so that refusing it is the policy's doing.
    open: () =>
      MysqlDatabase.connect({
        name: 'crm',
        url: databases.crmUrl,
        schemas: [schemaOf(databases.financeUrl)],
        limits: LIMITS,
        logger,
      }),
    schema: () => schemaOf(databases.crmUrl),
    metadata: ['SHOW TABLES', 'SHOW COLUMNS FROM customers', 'DESCRIBE customers', 'DESC tickets'],
    /** Statements the database itself fails, after the masked table was rewritten into a view. */
    failing: ['SELECT * FROM customers WHERE nosuch = 1', 'SELECT CONVERT(email USING nosuch) FROM customers'],
  },
  {
    dialect: 'sqlite' as const,
    open: () => SqliteDatabase.open({ name: 'crm', path: databases.sqlitePath, limits: LIMITS }),
    schema: () => 'main',
    metadata: [
      'SELECT * FROM sqlite_master',
      'SELECT sql FROM sqlite_schema',
      'PRAGMA table_info(customers)',
      "SELECT name FROM pragma_table_info('customers')",
    ],
    failing: ['SELECT * FROM customers WHERE nosuch = 1', 'SELECT email FROM customers WHERE'],
  },
];

/** The refusal `sql` meets: a SqlRejectedError, whose message is returned. */
async function refusalOf(db: Database, sql: string): Promise<string> {
  const error = await db.query(sql).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error, sql).toBeInstanceOf(SqlRejectedError);
  return (error as Error).message;
}

/** A database whose errors quote the statement it ran, as servers' syntax errors do near the fault. */
function quotingErrors(inner: Database): Database {
  return {
    name: inner.name,
    dialect: inner.dialect,
    listTables: () => inner.listTables(),
    describeTable: (table) => inner.describeTable(table),
    query: (sql, options) =>
      inner.query(sql, options).catch((error: unknown) => {
        throw new QueryFailedError(inner.name, `${(error as Error).message} in: ${sql}`);
      }),
    extract: (...args) => inner.extract(...args),
    close: () => inner.close(),
  };
}

describe.each(implementations)('the policed $dialect database', ({ dialect, open, schema, metadata, failing }) => {
  let inner: Database;
  let analyst: Database;
  let support: Database;

  beforeAll(async () => {
    inner = await open();
    analyst = policedDatabase(inner, { access: crmAccessOf('U0ANALYST'), pseudonymKey: KEY });
    support = policedDatabase(inner, { access: crmAccessOf('U0SUPPORT'), pseudonymKey: KEY });
  });
  afterAll(() => inner?.close());

  describe('listings', () => {
    it('list only the granted tables', async () => {
      expect((await analyst.listTables()).map((table) => table.name)).toEqual(['customers', 'tickets']);
      expect((await support.listTables()).map((table) => table.name)).toEqual(['customers']);
    });

    it('describe only the granted columns; masked ones are marked and carry no samples', async () => {
      const { columns } = await analyst.describeTable('customers');
      expect(columns.map((column) => column.name)).toEqual(['id', 'name', 'email', 'phone', 'segment']);
      const byName = Object.fromEntries(columns.map((column) => [column.name, column]));
      expect(byName.email).toMatchObject({
        type: 'char(16)',
        kind: 'text',
        comment: expect.stringMatching(/pseudonym/),
      });
      expect(byName.phone).toMatchObject({ kind: 'text', comment: expect.stringMatching(/always NULL/) });
      expect(byName.email?.samples).toBeUndefined();
      expect(byName.phone?.samples).toBeUndefined();
      expect(byName.segment?.samples).toEqual(expect.arrayContaining(['retail', 'business']));
      const tickets = await analyst.describeTable('tickets');
      expect(tickets.columns.find((column) => column.name === 'email')?.samples).toBeUndefined();
      expect(JSON.stringify([columns, tickets])).not.toMatch(/@example\.com|\+1-202/);
    });

    it('do not describe a table that is not granted', async () => {
      await expect(support.describeTable('tickets')).rejects.toThrow(/no table named 'tickets'.*Tables: customers/);
    });
  });

  describe('rows', () => {
    it('SELECT * reads the granted columns only: e-mail pseudonymised, phone NULL', async () => {
      const result = await analyst.query('SELECT * FROM customers ORDER BY id');
      expect(result.columns.map((column) => column.name)).toEqual(['id', 'name', 'email', 'phone', 'segment']);
      expect(result.rows).toEqual(
        CUSTOMERS.map(([id, name, email, , segment]) => [id, name, pseudonym(email), null, segment]),
      );
      for (const row of result.rows) expect(String(row[2])).toMatch(/^[0-9a-f]{16}$/);
      const text = JSON.stringify(result.rows);
      for (const raw of RAW_CONTACTS) expect(text).not.toContain(raw);
    });

    it('joins on the pseudonymised e-mail: tickets per segment as in the fixture', async () => {
      const result = await analyst.query(
        'SELECT c.segment, COUNT(*) AS n FROM customers c JOIN tickets t ON t.email = c.email GROUP BY c.segment',
      );
      const counts = Object.fromEntries(result.rows.map(([segment, n]) => [segment, Number(n)]));
      expect(counts).toEqual(TICKETS_PER_SEGMENT);
      expect(counts).toEqual({ business: 3, retail: 4 });
    });

    it('pseudonymises an e-mail alike in both tables', async () => {
      const result = await analyst.query(
        "SELECT DISTINCT t.email FROM tickets t WHERE t.email IN (SELECT c.email FROM customers c WHERE c.name = 'Ann Lee')",
      );
      expect(result.rows).toEqual([[pseudonym('ann.lee@example.com')]]);
      const tickets = await analyst.query('SELECT DISTINCT email FROM tickets');
      expect(tickets.rows.map(([email]) => email).sort()).toEqual(
        [...new Set(TICKETS.map(([, email]) => pseudonym(email)))].sort(),
      );
    });

    it('finds nothing by a raw e-mail address, the person by its pseudonym', async () => {
      const raw = await analyst.query("SELECT id FROM customers WHERE email = 'ann.lee@example.com'");
      expect(raw.rows).toEqual([]);
      const pseudonymised = await analyst.query(
        `SELECT id FROM customers WHERE email = '${pseudonym('ann.lee@example.com')}'`,
      );
      expect(pseudonymised.rows).toEqual([[1]]);
    });
  });

  describe('refusals, each saying what may be read', () => {
    it('a table not granted', async () => {
      expect(await refusalOf(support, 'SELECT * FROM tickets')).toBe(
        'table tickets is not granted to you by the access policy. Tables you may read here: customers.',
      );
      expect(await refusalOf(support, 'SELECT c.id FROM customers c JOIN tickets t ON t.email = c.email')).toMatch(
        /table tickets is not granted.*Tables you may read here: customers\./,
      );
    });

    it('a column not granted, in SELECT, in WHERE and qualified', async () => {
      const expected = `column customers.tenure is not granted to you by the access policy. Columns of customers you may read: ${READABLE_CUSTOMERS} (SELECT * reads just these).`;
      for (const sql of [
        'SELECT tenure FROM customers',
        'SELECT id FROM customers WHERE tenure > 10',
        'SELECT customers.tenure FROM customers',
      ]) {
        expect(await refusalOf(analyst, sql)).toBe(expected);
      }
    });

    it('the information_schema', async () => {
      const message = await refusalOf(analyst, 'SELECT column_name FROM information_schema.columns');
      expect(message).toMatch(/^information_schema is not available under the access policy/);
      expect(message).toContain(METADATA_HINT);
    });

    it.each(metadata)('the metadata statement %s', async (sql) => {
      expect(await refusalOf(analyst, sql)).toContain(METADATA_HINT);
    });

    it('a masked table named with its schema, which would read the base table', async () => {
      const qualified = `${schema()}.customers`;
      for (const sql of [
        `SELECT * FROM ${qualified}`,
        `SELECT c.id FROM customers c JOIN ${qualified} r ON r.id = c.id`,
      ]) {
        expect(await refusalOf(analyst, sql)).toBe(
          `customers is masked for you by the access policy; name it without its schema (customers, not ${qualified}).`,
        );
      }
    });
  });

  describe('extraction into the kernel', () => {
    it('loads masked rows, with provenance naming the masks and the statement as written', async () => {
      const sql = 'SELECT * FROM customers ORDER BY id';
      const name = `customers_${dialect}`;
      const provenance = await analyst.extract(sql, kernel, name);
      expect(provenance.sql).toBe(sql);
      expect(provenance.rows).toBe(CUSTOMERS.length);
      expect(provenance.masked).toEqual([
        { column: 'customers.email', treatment: 'hash' },
        { column: 'customers.phone', treatment: 'redact' },
      ]);
      expect(provenance.columns.map((column) => column.name)).toEqual(['id', 'name', 'email', 'phone', 'segment']);
      expect(JSON.stringify(provenance)).not.toContain(KEY);

      const execution = await kernel.run(`print(${name}.to_csv())\nprint(${name}.attrs["provenance"])`);
      expect(execution.error, execution.error?.traceback).toBeUndefined();
      expect(execution.stdout).toContain(pseudonym('eve.moss@example.com'));
      expect(execution.stdout).toContain('Dmitri Volkov');
      for (const raw of RAW_CONTACTS) expect(execution.stdout).not.toContain(raw);
      expect(execution.stdout).not.toContain(KEY);
      expect(execution.stdout).not.toContain('tenure');
    });

    it('refuses to extract what it refuses to query', async () => {
      await expect(support.extract('SELECT * FROM tickets', kernel, `tickets_${dialect}`)).rejects.toBeInstanceOf(
        SqlRejectedError,
      );
      const check = await kernel.run(`print("tickets_${dialect}" in globals())`);
      expect(check.stdout.trim()).toBe('False');
    });
  });

  describe('the pseudonym key', () => {
    it.each(failing)('is in no message of a statement the database fails: %s', async (sql) => {
      const error = await analyst.query(sql).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).not.toContain(KEY);
      const extracted = await analyst.extract(sql, kernel, `failed_${dialect}`).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(extracted).toBeInstanceOf(Error);
      expect((extracted as Error).message).not.toContain(KEY);
    });

    it('is scrubbed from an error that quotes the rewritten statement', async () => {
      const quoting = policedDatabase(quotingErrors(inner), { access: crmAccessOf('U0ANALYST'), pseudonymKey: KEY });
      const error = await quoting.query(failing[0] ?? '').then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(QueryFailedError);
      const { message } = error as Error;
      // The statement quoted is the rewritten one, the key's place marked.
      expect(message).toContain(dialect === 'mysql' ? "CONCAT('…'" : "tally_pseudonym('…'");
      expect(message).not.toContain(KEY);
    });
  });

  describe('instructions in the data', () => {
    it('arrive as data: a customer name (and, in MariaDB, a column comment) carry them', async () => {
      const result = await analyst.query('SELECT name FROM customers WHERE id = 3');
      expect(result.rows).toEqual([[INJECTION]]);
      const name = (await analyst.describeTable('customers')).columns.find((column) => column.name === 'name');
      if (dialect === 'mysql') expect(name?.comment).toBe(INJECTION);
    });

    it('grant nothing: the finance salaries are refused, and finance is not granted at all', async () => {
      const statements = ['SELECT * FROM finance.salaries'];
      if (dialect === 'mysql') {
        const finance = schemaOf(databases.financeUrl);
        statements.push(
          `SELECT * FROM ${finance}.salaries`,
          `SELECT c.id, s.salary FROM customers c, ${finance}.salaries s`,
        );
        // The connector alone would read them: the refusal below is the policy's.
        expect((await inner.query(`SELECT * FROM ${finance}.salaries ORDER BY salary DESC`)).rows).toEqual(
          SALARIES.map((row) => [...row]),
        );
      }
      for (const sql of statements) {
        const message = await refusalOf(analyst, sql);
        if (dialect === 'mysql')
          expect(message).toMatch(/is not granted to you.*Tables you may read here: customers, tickets\./);
        expect(message).not.toMatch(/Frank Hale|412000/);
      }
      const access = resolveAccess(POLICY, slackUser('U0ANALYST'));
      expect([...access.databases.keys()]).toEqual(['crm']);
      expect(access.hidden.has('finance')).toBe(false);
    });
  });
});

describe('names read another way', () => {
  // SQLite reads a single-quoted string where only a name may stand as that name (`FROM 'customers'`): the
  // statement check must take it for the table, or the raw rows would come back.
  it('SQLite: a table named as a string is masked or refused like any other', async () => {
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
        const outcome = await db.query(sql).then(
          (result) => JSON.stringify(result.rows),
          (error: unknown) => String(error),
        );
        expect(outcome, sql).not.toMatch(secret);
      }
    } finally {
      await inner.close();
    }
  });

  // A table of another schema the connector may read (DATABASE_SCHEMAS_<NAME>) cannot be masked by views named
  // like its tables: `*` does not grant it, and where a grant names it, a masked column keeps it from being read.
  it('MariaDB: another schema is read only when granted by name, and never with a masked column', async () => {
    const finance = schemaOf(databases.financeUrl);
    const policyOf = (tables: string) =>
      parsePolicy(
        `
principals: { analysts: { slack_users: [U0ANALYST] } }
databases: { crm: { sensitive: { "*.salary": redact } } }
grants: [{ to: [analysts], database: crm, tables: ${tables} }]
`,
        'policy.yaml',
        ['crm'],
      );
    const accessOf = (tables: string) => {
      const access = resolveAccess(policyOf(tables), slackUser('U0ANALYST')).databases.get('crm');
      if (!access) throw new Error('crm is not granted');
      return access;
    };
    const inner = await MysqlDatabase.connect({
      name: 'crm',
      url: databases.crmUrl,
      schemas: [finance],
      limits: LIMITS,
      logger,
    });
    try {
      const sql = `SELECT name, salary FROM ${finance}.salaries ORDER BY name`;
      // The connector alone reads the salaries: what refuses them below is the policy.
      expect((await inner.query(sql)).rows).toHaveLength(2);
      const everything = policedDatabase(inner, { access: accessOf('["*"]'), pseudonymKey: KEY });
      await expect(everything.query(sql)).rejects.toThrow(`table ${finance}.salaries is not granted to you`);
      const named = policedDatabase(inner, { access: accessOf(`["*", "${finance}.*"]`), pseudonymKey: KEY });
      await expect(named.query(sql)).rejects.toThrow(/salary is masked or not granted to you.*DATABASE_URL_<NAME>/s);
      const withoutSalary = parsePolicy(
        `
principals: { analysts: { slack_users: [U0ANALYST] } }
grants: [{ to: [analysts], database: crm, tables: ["${finance}.*"] }]
`,
        'policy.yaml',
        ['crm'],
      );
      const plain = resolveAccess(withoutSalary, slackUser('U0ANALYST')).databases.get('crm');
      if (!plain) throw new Error('crm is not granted');
      const whole = policedDatabase(inner, { access: plain, pseudonymKey: KEY });
      expect((await whole.query(sql)).rows).toEqual([
        ['Frank Hale', 412000],
        ['Grace Kim', 238500],
      ]);
    } finally {
      await inner.close();
    }
  });
});
