/**
 * The schema a turn's prompts carry (`src/agent/schema/`): on a small schema every table with every column; on the
 * 1,000-table warehouse of the benchmark, an overview that never depends on the question and a bounded description
 * of the tables the question needs, with the tables they join to and the ones the knowledge names.
 */
import { describe, expect, it } from 'vitest';
import { describedWarehouseTable, warehouseTables } from '../../bench/schema-warehouse.js';
import { OVERVIEW_CHARS, RELEVANT_CHARS, schemaContext } from '../../src/agent/schema/schema-context.js';
import { type CatalogueTable, identifierText, scoreTables } from '../../src/agent/schema/table-search.js';
import type { Catalogue, Database, TableDescription } from '../../src/ports/database.js';
import type { KnowledgePiece } from '../../src/ports/knowledge.js';
import { TELCO_TABLES } from '../../telco_data/telco-tables.js';

const KINDS = { id: 'text', category: 'text', integer: 'integer', money: 'decimal' } as const;

function telcoDescriptions(): TableDescription[] {
  return TELCO_TABLES.map((spec) => ({
    name: spec.name,
    rows: 5634,
    rowsExact: true,
    comment: spec.comment,
    columns: spec.columns.map((column) => ({
      name: column.name,
      type: column.kind,
      kind: KINDS[column.kind as keyof typeof KINDS] ?? 'text',
      nullable: column.nullable,
      comment: column.comment,
    })),
  })).sort((a, b) => a.name.localeCompare(b.name));
}

/** A database whose catalogue is `tables`; counts the calls. */
function fakeDatabase(name: string, tables: TableDescription[], withCatalogue = true) {
  const calls = { catalogue: 0, listTables: 0, describeTable: 0 };
  const catalogue: Catalogue = { tables, version: '1' };
  const database: Database = {
    name,
    dialect: 'mysql',
    async listTables() {
      calls.listTables += 1;
      return tables.map(({ columns: _columns, ...info }) => info);
    },
    async describeTable(table) {
      calls.describeTable += 1;
      const found = tables.find((candidate) => candidate.name === table);
      if (!found) throw new Error(`no table ${table}`);
      return { ...found, columns: found.columns.map((column) => ({ ...column, samples: ['x'] })) };
    },
    ...(withCatalogue
      ? {
          async catalogue() {
            calls.catalogue += 1;
            return catalogue;
          },
        }
      : {}),
    query: () => Promise.reject(new Error('not here')),
    extract: () => Promise.reject(new Error('not here')),
    close: async () => {},
  };
  return { database, calls };
}

const warehouse = () =>
  fakeDatabase(
    'warehouse',
    [...warehouseTables().map(describedWarehouseTable), ...telcoDescriptions()].sort((a, b) =>
      a.name.localeCompare(b.name),
    ),
  );

/** The table names `relevant` describes (lines `- name (`). */
function described(relevant: string): string[] {
  return [...relevant.matchAll(/^- ([\w.]+) \(/gm)].map((match) => match[1] as string);
}

describe('schemaContext on a small schema', () => {
  it('describes the tables the question needs, and names the rest only in the overview', async () => {
    const { database } = fakeDatabase('telco', telcoDescriptions());
    const { overview, relevant } = await schemaContext([database], 'how many customers pay by check?', []);
    expect(overview).toMatch(/^database telco \(mysql\), 8 tables: user_churn, user_churn_new,/);
    expect(described(relevant)[0]).toBe('user_payments');
    const payments = TELCO_TABLES.find((table) => table.name === 'user_payments');
    for (const column of payments?.columns ?? []) expect(relevant).toContain(`${column.name} `);
    expect(described(relevant)).not.toContain('user_services');
    expect(relevant).toMatch(/\(\d+ more tables: list_tables, describe_table\)$/);
  });

  it('says a table with the columns of one described before it is so, instead of describing it again', async () => {
    const { database } = fakeDatabase('telco', telcoDescriptions());
    const { relevant } = await schemaContext([database], 'churn in user_churn and user_churn_new', []);
    const lines = relevant.split('\n').filter((line) => /^- user_churn(_new)? \(/.test(line));
    expect(lines).toHaveLength(2);
    const [first, second] = lines as [string, string];
    expect(first).toMatch(/\): customerID text \(Customer id/);
    expect(second).toMatch(/\): the columns of user_churn(_new)?$/);
    expect(second).not.toContain('customerID');
  });

  it('leaves out the comments of a table and its columns that a knowledge piece sent with them describes', async () => {
    const { database } = fakeDatabase('telco', telcoDescriptions());
    const question = 'how many customers pay by check?';
    const bare = (await schemaContext([database], question, [])).relevant;
    const payments = bare.split('\n').find((line) => line.startsWith('- user_payments ('));
    expect(payments).toMatch(/rows; Contract, billing/);
    expect(payments).toMatch(/PaymentMethod text \(How the customer pays\)/);
    const known: KnowledgePiece[] = [
      {
        database: 'telco',
        kind: 'table',
        title: 'user_payments',
        text: 'user_payments: one row per customer\n    PaymentMethod (also: pay method): how the customer pays',
        source: 'tables.yaml',
        tables: ['user_payments'],
      },
    ];
    const relevant = (await schemaContext([database], question, known)).relevant;
    const line = relevant.split('\n').find((candidate) => candidate.startsWith('- user_payments ('));
    expect(line).toMatch(/^- user_payments \(5,634 rows\): customerID text/);
    expect(line).toContain('PaymentMethod text,');
    // A column the piece does not describe keeps its comment.
    expect(line).toMatch(/Contract text \(Contract term\)/);
  });

  it('describes no table when the request names none, and says where to look', async () => {
    const { database } = fakeDatabase('telco', telcoDescriptions());
    const { relevant } = await schemaContext([database], 'What is the mean of the Fare column in titanic.csv?', []);
    expect(described(relevant)).toEqual([]);
    expect(relevant).toMatch(/^No table name, column or comment matches this request/);
  });

  it('reads table by table when the database keeps no catalogue, without samples', async () => {
    const { database, calls } = fakeDatabase('telco', telcoDescriptions(), false);
    const { relevant } = await schemaContext([database], 'churn by contract', []);
    expect(calls.describeTable).toBe(8);
    expect(described(relevant)).toEqual(expect.arrayContaining(['user_churn', 'user_payments']));
    expect(relevant).not.toContain('x,');
  });
});

describe('schemaContext on 1,000 tables', () => {
  it('gives the same overview for every question, bounded, and naming every table group', async () => {
    const { database } = warehouse();
    const first = await schemaContext([database], 'average order value per customer segment', []);
    const second = await schemaContext([database], 'fuel cost per vehicle last month', []);
    expect(second.overview).toBe(first.overview);
    expect(second.relevant).not.toBe(first.relevant);
    expect(first.overview.length).toBeLessThanOrEqual(OVERVIEW_CHARS + 200);
    expect(first.overview).toMatch(/^database warehouse \(mysql\), 1000 tables by name prefix/);
    expect(first.overview).toContain('sales_* (40)');
    expect(first.overview).toContain('user_* (8)');
  });

  it('describes the tables a question names, within the budget, and lists the rest by count', async () => {
    const { database } = warehouse();
    const { relevant } = await schemaContext([database], 'Which fleet vehicles had the highest fuel cost?', []);
    expect(relevant.length).toBeLessThanOrEqual(RELEVANT_CHARS + 300);
    expect(described(relevant)[0]).toBe('fleet_fuel_purchases');
    expect(described(relevant)).toContain('fleet_vehicles');
    // Derived tables (x_archive of x) rank below the base table the question asks for.
    expect(described(relevant).indexOf('fleet_fuel_purchases_archive')).toBeGreaterThan(
      described(relevant).indexOf('fleet_vehicles'),
    );
    expect(relevant).toMatch(/\(\d+ more tables: list_tables, describe_table\)$/);
    expect(described(relevant).length).toBeLessThan(15);
  });

  it('adds the tables a matched table references by foreign key', async () => {
    const { database } = warehouse();
    const { relevant } = await schemaContext([database], 'total spend on scrap by reason', []);
    expect(described(relevant)).toContain('manufacturing_scrap');
    // scrap.batch_id -> manufacturing_batches.id: the question never says "batch".
    expect(described(relevant)).toContain('manufacturing_batches');
    expect(relevant).toContain('batch_id integer -> manufacturing_batches.id');
  });

  it('takes the derived table the question asks for over the base table', async () => {
    const { database } = warehouse();
    const { relevant } = await schemaContext([database], 'monthly web sessions by device type', []);
    expect(described(relevant)[0]).toBe('web_sessions_monthly');
  });

  it('takes the tables the knowledge pieces name, and the ones their joins add', async () => {
    const { database } = warehouse();
    const question = 'what share of our subscribers walked away?';
    const without = await schemaContext([database], question, []);
    expect(described(without.relevant)).not.toContain('user_churn');
    const known: KnowledgePiece[] = [
      {
        database: 'warehouse',
        kind: 'definition',
        title: 'churn rate',
        text: 'churned customers over all customers (user_churn.Churn = Yes)',
        source: 'definitions.yaml',
        tables: ['user_churn'],
      },
      {
        database: 'warehouse',
        kind: 'join',
        title: 'customers',
        text: 'user_churn joins user_demographics on customerID',
        source: 'tables.yaml',
        tables: ['user_churn', 'user_demographics'],
      },
    ];
    const { relevant } = await schemaContext([database], question, known);
    expect(described(relevant)).toEqual(expect.arrayContaining(['user_churn', 'user_demographics']));
  });

  it('says where to look when nothing matches', async () => {
    const { database } = warehouse();
    const { relevant } = await schemaContext([database], 'zzz qqq', []);
    expect(relevant).toMatch(/^No table name, column or comment matches this request/);
  });

  it('asks the kept catalogue once per turn, and never table by table', async () => {
    const { database, calls } = warehouse();
    await schemaContext([database], 'open support tickets by priority', []);
    expect(calls).toEqual({ catalogue: 1, listTables: 0, describeTable: 0 });
  });
});

describe('scoreTables', () => {
  it('ranks the best few as a full sort of every score would, ties by name', () => {
    const tables: CatalogueTable[] = warehouseTables()
      .map(describedWarehouseTable)
      .map((table) => ({ database: 'warehouse', table }));
    for (const question of ['fuel cost per vehicle', 'orders by region and status', 'monthly web sessions', 'id']) {
      const scores = scoreTables(tables, question, []);
      const sorted = tables
        .map((entry) => ({ name: entry.table.name, score: scores.scoreOf(`warehouse.${entry.table.name}`) }))
        .filter((entry) => entry.score > 0)
        .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
      for (const count of [1, 8, 40]) {
        const best = scores.best(count);
        expect(best.map((entry) => entry.table.name)).toEqual(sorted.slice(0, count).map((entry) => entry.name));
        expect(best.map((entry) => entry.score)).toEqual(sorted.slice(0, count).map((entry) => entry.score));
      }
    }
    expect(scoreTables(tables, 'zzz qqq', []).best(8)).toEqual([]);
  });
});

describe('identifierText', () => {
  it('splits snake case and camel case into words', () => {
    expect(identifierText('customerID')).toBe('customer ID');
    expect(identifierText('MonthlyCharges')).toBe('Monthly Charges');
    expect(identifierText('fleet_fuel_purchases')).toBe('fleet fuel purchases');
  });
});
