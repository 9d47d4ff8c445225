/** The tables the audit trail records for a statement run without an access policy, by its dialect's grammar. */
import { describe, expect, it } from 'vitest';
import { statementTables } from '../../src/db/guard/statement-tables.js';

describe('statementTables', () => {
  it('reads PostgreSQL-only syntax with the PostgreSQL grammar, EXPLAIN included', () => {
    const sql = `SELECT DISTINCT ON (o.customer_id) o.customer_id, o.amount::numeric(10,2),
      count(*) FILTER (WHERE t.region = 'north') FROM orders o JOIN sales.targets t ON t.region = o.status
      GROUP BY 1, 2 ORDER BY o.customer_id`;
    expect(statementTables(sql, 'postgres')).toEqual([
      { schema: null, table: 'orders' },
      { schema: 'sales', table: 'targets' },
    ]);
    expect(statementTables(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, 'postgres')).toHaveLength(2);
  });

  it('reads MySQL with the MySQL grammar, and says nothing of what it cannot read', () => {
    expect(statementTables('SELECT * FROM `orders` o JOIN archive.old a ON a.id = o.id', 'mysql')).toEqual([
      { schema: null, table: 'orders' },
      { schema: 'archive', table: 'old' },
    ]);
    expect(statementTables('SELECT FROM WHERE', 'postgres')).toBeUndefined();
  });
});
