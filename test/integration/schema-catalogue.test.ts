/**
 * The catalogue on real MariaDB, PostgreSQL and SQLite: read in a few statements whatever the number of tables,
 * kept between calls (one fingerprint statement each), read again after a table is added or altered or a comment
 * changes; and under the access policy, a reader never sees an ungranted table or a denied column in the overview
 * or the relevant tables of a turn, and masked columns are described as `describeTable` describes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaContext } from '../../src/agent/schema/schema-context.js';
import { auditedDatabase } from '../../src/audit/audited-database.js';
import { createLogger } from '../../src/base/logger.js';
import { MysqlDatabase } from '../../src/db/mysql/mysql-database.js';
import { PostgresDatabase } from '../../src/db/postgres/postgres-database.js';
import { SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import type { StreamingDatabase } from '../../src/db/streaming-database.js';
import { resolveAccess } from '../../src/policy/access.js';
import { policedDatabase } from '../../src/policy/policed-database.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import type { AuditEvent } from '../../src/ports/audit.js';
import type { Catalogue, Database } from '../../src/ports/database.js';
import { type CatalogueDatabase, type CatalogueDialect, catalogueDatabase } from '../support/catalogue-databases.js';
import { cleanUp } from '../support/clean-up.js';
import { slackUser } from '../support/policy-grants.js';
import { LIMITS } from '../support/sample-databases.js';

const logger = createLogger({ level: 'silent' });
const EXTRA_TABLES = 60;

const POLICY = parsePolicy(
  `
principals:
  analysts: { slack_users: [U0ANALYST] }
databases:
  crm:
    sensitive:
      customers.email: hash
      customers.phone: redact
grants:
  - to: [analysts]
    database: crm
    tables: [customers, tickets]
    columns: [customers.id, customers.name, customers.email, customers.phone, customers.segment, "tickets.*"]
`,
  'policy.yaml',
  ['crm'],
);

function open(dialect: CatalogueDialect, location: string): Promise<StreamingDatabase> {
  const common = { name: 'crm', limits: LIMITS, catalogue: { checkEveryMs: 0 } };
  if (dialect === 'mysql') return MysqlDatabase.connect({ ...common, url: location, logger });
  if (dialect === 'postgres') return PostgresDatabase.connect({ ...common, url: location, logger });
  return SqliteDatabase.open({ ...common, path: location });
}

/** Counts the statements the connector sends (every one goes through `withRows`). */
function countStatements(database: StreamingDatabase): { count: number } {
  const counter = { count: 0 };
  const target = database as unknown as { withRows: (...args: unknown[]) => Promise<unknown> };
  const original = target.withRows.bind(database);
  target.withRows = (...args) => {
    counter.count += 1;
    return original(...args);
  };
  return counter;
}

const tableNamed = (catalogue: Catalogue, name: string) => catalogue.tables.find((table) => table.name === name);

describe.each(['mysql', 'postgres', 'sqlite'] as const)('the catalogue on %s', (dialect) => {
  let fixture: CatalogueDatabase;
  let database: StreamingDatabase;
  let statements: { count: number };

  beforeAll(async () => {
    fixture = await catalogueDatabase(dialect, EXTRA_TABLES);
    database = await open(dialect, fixture.location);
    statements = countStatements(database);
  });
  afterAll(() =>
    cleanUp(
      () => database?.close(),
      () => fixture?.drop(),
    ),
  );

  it('reads every table in a few statements, with columns, kinds, keys, foreign keys and comments', async () => {
    const catalogue = await database.catalogue();
    // A fingerprint, three or four catalogue queries, and for SQLite one compound count per 200 tables.
    expect(statements.count).toBeLessThanOrEqual(6);
    expect(catalogue.tables).toHaveLength(EXTRA_TABLES + 3);
    const customers = tableNamed(catalogue, 'customers');
    expect(customers?.comment).toBe('one row per customer');
    expect(customers?.columns.map((column) => column.name)).toEqual([
      'id',
      'name',
      'email',
      'phone',
      'segment',
      'tenure',
    ]);
    expect(customers?.columns[0]).toMatchObject({ kind: 'integer', key: 'primary' });
    expect(customers?.columns[2]).toMatchObject({ kind: 'text', comment: 'where invoices go' });
    expect(tableNamed(catalogue, 'tickets')?.columns[1]).toMatchObject({
      name: 'customer_id',
      references: { table: 'customers', column: 'id' },
    });
    if (dialect === 'sqlite') expect(customers).toMatchObject({ rows: 1, rowsExact: true });
  });

  it('keeps it: the next call sends one fingerprint statement and gives the same catalogue', async () => {
    // MariaDB's creation times have whole seconds: for a second or two after a change every check reads again.
    if (dialect === 'mysql') await new Promise((resolve) => setTimeout(resolve, 2100));
    const first = await database.catalogue();
    const before = statements.count;
    expect(await database.catalogue()).toBe(first);
    expect(statements.count - before).toBe(1);
  });

  it('reads it again after a table is added, a column is added and a comment changes', async () => {
    const first = await database.catalogue();
    await fixture.admin(`CREATE TABLE refunds (id INTEGER PRIMARY KEY, refund_amount INTEGER)`);
    const added = await database.catalogue();
    expect(added).not.toBe(first);
    expect(tableNamed(added, 'refunds')?.columns.map((column) => column.name)).toEqual(['id', 'refund_amount']);

    await fixture.admin('ALTER TABLE refunds ADD COLUMN refund_reason TEXT');
    const altered = await database.catalogue();
    expect(tableNamed(altered, 'refunds')?.columns.map((column) => column.name)).toContain('refund_reason');

    if (dialect === 'sqlite') return; // no comments but the CREATE TABLE's
    await fixture.admin(
      dialect === 'mysql'
        ? "ALTER TABLE tickets COMMENT = 'what customers asked'"
        : "COMMENT ON TABLE tickets IS 'what customers asked'",
    );
    expect(tableNamed(await database.catalogue(), 'tickets')?.comment).toBe('what customers asked');
  });

  describe('under the access policy', () => {
    let policed: Database;

    beforeAll(() => {
      const access = resolveAccess(POLICY, slackUser('U0ANALYST')).databases.get('crm');
      if (!access) throw new Error('crm is not granted');
      policed = policedDatabase(database, { access, pseudonymKey: 'k'.repeat(32) });
    });

    it('lists only granted tables and columns, masked ones as describeTable describes them', async () => {
      const catalogue = await policed.catalogue?.();
      expect(catalogue?.tables.map((table) => table.name)).toEqual(['customers', 'tickets']);
      const customers = catalogue?.tables[0];
      const described = await policed.describeTable('customers');
      expect(customers?.columns.map((column) => column.name)).toEqual(['id', 'name', 'email', 'phone', 'segment']);
      expect(customers?.columns.map(({ name, type, kind, comment }) => ({ name, type, kind, comment }))).toEqual(
        described.columns.map(({ name, type, kind, comment }) => ({ name, type, kind, comment })),
      );
      expect(customers?.columns[2]).toMatchObject({ type: 'char(16)', kind: 'text' });
      expect(customers?.columns[2]?.comment).toMatch(/^pseudonymised by the access policy/);
      expect(customers?.columns[3]?.comment).toMatch(/^redacted by the access policy/);
    });

    it('leaves one list and one describe record per message in the audit trail, granted columns only', async () => {
      const events: AuditEvent[] = [];
      const audited = auditedDatabase(policed, { record: async (event) => void events.push(event) });
      await schemaContext([audited], 'customers by segment', []);
      await schemaContext([audited], 'tickets by topic', []);
      expect(events.map((event) => event.kind)).toEqual(['list', 'describe']);
      expect(events[0]?.tables).toEqual(['customers', 'tickets']);
      expect(events[1]?.columns).toContain('customers.email');
      expect(events[1]?.columns).not.toContain('customers.tenure');
    });

    it('never shows an ungranted table or a denied column in a turn, whatever is asked', async () => {
      for (const question of ['salaries by customer', 'customer tenure in months', 'extra value', 'tickets']) {
        const { overview, relevant } = await schemaContext([policed], question, []);
        const text = `${overview}\n${relevant}`;
        expect(text).toContain('customers');
        expect(text).not.toMatch(/salar|tenure|months as a customer|extra_|refunds/);
        if (!question.includes('customer')) continue;
        // A question about customers is told their columns, the masked ones as the policy shows them.
        expect(relevant).toMatch(/email text \(pseudonymised by the access policy/);
        expect(relevant).toMatch(/phone text \(redacted by the access policy/);
      }
    });
  });
});
