/**
 * The access policy enforced on real MariaDB, PostgreSQL and SQLite: a person sees only the tables and columns
 * granted to them; sensitive columns leave the database pseudonymised or NULL (in listings, query rows, and the
 * DataFrames loaded into a real kernel); anything else (ungranted tables and columns, metadata, the base table behind
 * a mask, another database or schema) is refused with what may be read instead; and the pseudonym key never reaches
 * a message. Names read another way per dialect are in policed-names.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryFailedError, SqlRejectedError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { MysqlDatabase } from '../../src/db/mysql/mysql-database.js';
import { PostgresDatabase } from '../../src/db/postgres/postgres-database.js';
import { SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import { resolveAccess } from '../../src/policy/access.js';
import { policedDatabase } from '../../src/policy/policed-database.js';
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
import {
  crmAccessOf,
  KEY,
  METADATA_HINT,
  POLICY,
  pseudonym,
  READABLE_CUSTOMERS,
  refusalOf,
  slackUser,
} from '../support/policy-grants.js';
import { LIMITS } from '../support/sample-databases.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

const logger = createLogger({ level: 'silent' });

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
    /** The schema of the salaries, which the connector may read and the policy grants no one. */
    finance: () => schemaOf(databases.financeUrl),
    metadata: ['SHOW TABLES', 'SHOW COLUMNS FROM customers', 'DESCRIBE customers', 'DESC tickets'],
    /** Statements the database itself fails, after the masked table was rewritten into a view. */
    failing: ['SELECT * FROM customers WHERE nosuch = 1', 'SELECT CONVERT(email USING nosuch) FROM customers'],
    /** Where the key stood in the rewritten statement, once scrubbed. */
  },
  {
    dialect: 'sqlite' as const,
    open: () => SqliteDatabase.open({ name: 'crm', path: databases.sqlitePath, limits: LIMITS }),
    schema: () => 'main',
    finance: () => undefined,
    metadata: [
      'SELECT * FROM sqlite_master',
      'SELECT sql FROM sqlite_schema',
      'PRAGMA table_info(customers)',
      "SELECT name FROM pragma_table_info('customers')",
    ],
    failing: ['SELECT * FROM customers WHERE nosuch = 1', 'SELECT email FROM customers WHERE'],
  },
  {
    dialect: 'postgres' as const,
    open: () =>
      PostgresDatabase.connect({
        name: 'crm',
        url: databases.postgresUrl,
        schemas: ['finance'],
        limits: LIMITS,
        logger,
      }),
    schema: () => 'public',
    finance: () => 'finance',
    // The guard allows all of these (an account's own metadata is no secret); under the policy they would list
    // tenure, or show its values (pg_stats), or the definitions and comments of what is not granted.
    metadata: [
      'SELECT * FROM information_schema.columns',
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'customers'",
      'SELECT * FROM pg_catalog.pg_attribute',
      "SELECT attname FROM pg_attribute WHERE attrelid = 'customers'::regclass",
      'SELECT description FROM pg_description',
      "SELECT col_description('customers'::regclass, 6)",
      "SELECT pg_get_indexdef('customers_pkey'::regclass)",
      'SELECT most_common_vals FROM pg_stats',
    ],
    failing: ['SELECT * FROM customers WHERE nosuch = 1', 'SELECT email::integer FROM customers'],
  },
];

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

describe.each(implementations)('the policed $dialect database', (implementation) => {
  const { dialect, open, schema, finance, metadata, failing } = implementation;
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
      // What the error quotes of the rewritten statement (the key among it) is cut as a value would be.
      expect(message).toContain("'…'");
      expect(message).not.toContain(KEY);
    });
  });

  describe('instructions in the data', () => {
    it('arrive as data: a customer name (and, in MariaDB and PostgreSQL, a column comment) carry them', async () => {
      const result = await analyst.query('SELECT name FROM customers WHERE id = 3');
      expect(result.rows).toEqual([[INJECTION]]);
      const name = (await analyst.describeTable('customers')).columns.find((column) => column.name === 'name');
      expect(name?.comment).toBe(dialect === 'sqlite' ? undefined : INJECTION);
    });

    it('grant nothing: the finance salaries are refused, and finance is not granted at all', async () => {
      const statements = ['SELECT * FROM finance.salaries'];
      const other = finance();
      if (other !== undefined) {
        statements.push(
          `SELECT * FROM ${other}.salaries`,
          `SELECT c.id, s.salary FROM customers c, ${other}.salaries s`,
          `SELECT c.id FROM customers c JOIN ${other}.salaries s ON s.name = c.name`,
          `SELECT id FROM customers WHERE name IN (SELECT name FROM ${other}.salaries)`,
        );
        // The connector alone would read them: the refusal below is the policy's.
        expect((await inner.query(`SELECT * FROM ${other}.salaries ORDER BY salary DESC`)).rows).toEqual(
          SALARIES.map((row) => [...row]),
        );
      }
      for (const sql of statements) {
        const message = await refusalOf(analyst, sql);
        if (other !== undefined)
          expect(message, sql).toMatch(/is not granted to you.*Tables you may read here: customers, tickets\./);
        expect(message).not.toMatch(/Frank Hale|412000/);
      }
      const access = resolveAccess(POLICY, slackUser('U0ANALYST'));
      expect([...access.databases.keys()]).toEqual(['crm']);
      expect(access.hidden.has('finance')).toBe(false);
    });
  });
});
