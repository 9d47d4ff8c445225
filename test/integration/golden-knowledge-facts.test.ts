/**
 * The facts the golden knowledge cases expect, computed from the generator (golden/telco-facts.ts),
 * against telco_db as loadTelco writes it to a real MariaDB, queried the way the telco knowledge set
 * says: the active-customer count with its definition's SQL, and the churn rates with the verified
 * queries' own SQL.
 */
import type mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeTelcoFacts } from '../../src/eval/golden/telco-facts.js';
import { FileKnowledge, TELCO_KNOWLEDGE_DIR } from '../../src/knowledge/file-knowledge.js';
import { loadTelco } from '../../telco_data/index.js';
import { adminConnection, createTestDatabase, type TestDatabase } from '../support/mariadb.js';

const facts = computeTelcoFacts();
let database: TestDatabase | undefined;
let connection: mysql.Connection | undefined;
let knowledge: FileKnowledge;

async function rows(sql: string): Promise<Array<Record<string, unknown>>> {
  if (!connection) throw new Error('no connection');
  const [result] = await connection.query(sql);
  return result as Array<Record<string, unknown>>;
}

/** A verified query's SQL with its parameters at their defaults. */
function verifiedSql(name: string): string {
  const query = knowledge.query('telco_db', name);
  if (!query) throw new Error(`no verified query ${name}`);
  return query.sql.replace(
    /\{\{(\w+)\}\}/g,
    (_, parameter: string) => `${query.parameters.find((entry) => entry.name === parameter)?.default}`,
  );
}

beforeAll(async () => {
  database = await createTestDatabase('tally_goldenfacts');
  await loadTelco({ target: database.url });
  connection = await adminConnection(database.name);
  knowledge = await FileKnowledge.load([TELCO_KNOWLEDGE_DIR], { telco_db: ['telco_db'] });
}, 180_000);

afterAll(async () => {
  await connection?.end();
  await database?.drop();
}, 60_000);

describe('the golden knowledge facts against telco_db', () => {
  it('counts the active customers of the definition, with its SQL condition', async () => {
    const definition = knowledge
      .relevant('active customer', [{ database: 'telco_db', tables: ['user_payments', 'user_churn', 'user_services'] }])
      .find((piece) => piece.kind === 'definition' && piece.title === 'active customer');
    const condition = /SQL: (.*)$/.exec(definition?.text ?? '')?.[1];
    expect(condition).toBe("c.Churn = 'No' AND s.tenure >= 1");
    const [counted] = await rows(
      'SELECT COUNT(*) AS active FROM user_payments p JOIN user_churn c ON c.customerID = p.customerID ' +
        `JOIN user_services s ON s.customerID = p.customerID WHERE ${condition}`,
    );
    expect(Number(counted?.active)).toBe(facts.activeCustomers);
    // Not a number that any count would give: tenure 0 and churned customers are left out.
    expect(facts.activeCustomers).toBeGreaterThan(3000);
    expect(facts.activeCustomers).toBeLessThan(facts.rows.user_payments * (1 - facts.trainChurnRate));
    // The verified query per internet service adds up to the same customers.
    const perService = await rows(verifiedSql('active customers by internet service'));
    expect(perService.reduce((sum, row) => sum + Number(row.active_customers), 0)).toBe(facts.activeCustomers);
  });

  it('gives the churn rates of the facts with the verified queries, to their 4 decimals', async () => {
    for (const [name, column, expected] of [
      ['churn rate by payment method', 'PaymentMethod', facts.churnByPaymentMethod],
      ['churn rate by contract', 'Contract', facts.churnByContract],
    ] as const) {
      const found = await rows(verifiedSql(name));
      expect(new Map(found.map((row) => [String(row[column]), Number(row.churn_rate)]))).toEqual(
        new Map([...expected].map(([value, rate]) => [value, Number(rate.toFixed(4))])),
      );
    }
  });
});
