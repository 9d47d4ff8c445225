/**
 * The statements of issue 33, by name, as each dialect writes them: on MariaDB each read raw values (or, for the
 * support user, columns not granted) before nested-with.ts and error-values.ts.
 */
import type { User } from './masking-leaks.js';
import type { Dialect } from './masking-probes.js';
import type { MaskingStatement } from './masking-sources.js';

export interface Regression extends MaskingStatement {
  user: User;
}

const GROUP_CONCAT: Record<Dialect, (column: string) => string> = {
  mysql: (column) => `GROUP_CONCAT(${column})`,
  postgres: (column) => `string_agg(${column}, ',')`,
  sqlite: (column) => `group_concat(${column})`,
};

/** A server error that quotes the first e-mail address. */
const QUOTING_ERROR: Record<Dialect, string> = {
  mysql: 'SELECT EXTRACTVALUE(1, CONCAT(0x7e, (SELECT email FROM customers LIMIT 1)))',
  postgres: 'SELECT CAST((SELECT email FROM customers ORDER BY id LIMIT 1) AS integer)',
  sqlite: 'SELECT json((SELECT email FROM customers ORDER BY id LIMIT 1))',
};

const NESTED = 'SELECT * FROM (WITH x AS (SELECT * FROM customers) SELECT email, phone FROM x) t';

export function regressions(dialect: Dialect): Regression[] {
  const cases: Array<Omit<Regression, 'form' | 'tables'> & { tables?: Regression['tables'] }> = [
    { name: 'derived table holding a nested WITH', sql: NESTED, nested: true, oracle: false, user: 'analyst' },
    {
      name: 'CTE named like the table',
      sql: 'WITH customers AS (SELECT * FROM customers) SELECT email, phone FROM customers',
      nested: true,
      oracle: false,
      user: 'analyst',
    },
    {
      name: 'CTE named like the table, inside a derived table',
      sql: 'SELECT * FROM (WITH customers AS (SELECT * FROM customers) SELECT email, phone FROM customers) t',
      nested: true,
      oracle: false,
      user: 'analyst',
    },
    {
      name: 'scalar subquery aggregating a nested WITH',
      sql: `SELECT (WITH x AS (SELECT * FROM customers) SELECT ${GROUP_CONCAT[dialect]('email')} FROM x) AS v`,
      nested: true,
      oracle: false,
      user: 'analyst',
    },
    {
      name: 'IN subquery with a LIKE oracle',
      sql: "SELECT COUNT(*) AS n FROM customers WHERE id IN (WITH x AS (SELECT * FROM customers) SELECT id FROM x WHERE email LIKE '%@example.com')",
      nested: true,
      oracle: true,
      user: 'analyst',
    },
    {
      name: 'EXISTS subquery with a LIKE oracle',
      sql: "SELECT COUNT(*) AS n FROM customers c WHERE EXISTS (WITH x AS (SELECT * FROM customers) SELECT 1 FROM x WHERE x.id = c.id AND x.email LIKE '%@example.com')",
      nested: true,
      oracle: true,
      user: 'analyst',
    },
    {
      name: 'nested WITH inside a top-level CTE',
      sql: `WITH y AS (${NESTED}) SELECT * FROM y`,
      nested: true,
      oracle: false,
      user: 'analyst',
    },
    {
      name: 'nested WITH beside a second CTE',
      sql: `WITH k AS (SELECT 2 AS two), y AS (${NESTED}) SELECT y.email, y.phone FROM y, k`,
      nested: true,
      oracle: false,
      user: 'analyst',
    },
    {
      name: 'nested WITH beside a recursive CTE',
      sql: `WITH RECURSIVE r (rn) AS (SELECT 1 UNION ALL SELECT rn + 1 FROM r WHERE rn < 2) SELECT d.email, d.phone FROM (${NESTED}) d CROSS JOIN r`,
      nested: true,
      oracle: false,
      user: 'analyst',
    },
    {
      name: 'nested WITH RECURSIVE',
      sql: 'SELECT * FROM (WITH RECURSIVE x AS (SELECT * FROM customers) SELECT email, phone FROM x) t',
      nested: true,
      oracle: false,
      user: 'analyst',
    },
    {
      // Found by this battery: nested-with.ts takes `WITH data`, `WITH time`, `WITH ties` … for WITH DATA, WITH TIME
      // ZONE, WITH TIES, not for a WITH whose CTE has that name.
      name: 'nested WITH whose CTE is named like a keyword (data)',
      sql: 'SELECT * FROM (WITH data AS (SELECT * FROM customers) SELECT email, phone FROM data) t',
      nested: true,
      oracle: false,
      user: 'analyst',
    },
    {
      name: 'IN subquery with a LIKE oracle, its nested CTE named like a keyword (ties)',
      sql: "SELECT COUNT(*) AS n FROM customers WHERE id IN (WITH ties AS (SELECT * FROM customers) SELECT id FROM ties WHERE email LIKE '%@example.com')",
      nested: true,
      oracle: true,
      user: 'analyst',
    },
    {
      name: 'server error quoting a value',
      sql: QUOTING_ERROR[dialect],
      nested: false,
      oracle: false,
      user: 'analyst',
    },
    {
      name: 'support: every column of customers through a nested WITH',
      sql: 'SELECT * FROM (WITH x AS (SELECT * FROM customers) SELECT * FROM x) t',
      nested: true,
      oracle: false,
      user: 'support',
    },
    {
      name: 'support: two columns of customers through a nested WITH',
      sql: 'SELECT * FROM (WITH x AS (SELECT * FROM customers) SELECT email, phone FROM x) t',
      nested: true,
      oracle: false,
      user: 'support',
    },
    {
      name: 'support: every column of customers through a nested WITH named like a keyword (time)',
      sql: 'SELECT * FROM (WITH time AS (SELECT * FROM customers) SELECT * FROM time) t',
      nested: true,
      oracle: false,
      user: 'support',
    },
    {
      name: 'support: the ungranted tenure named through a nested WITH',
      sql: 'SELECT * FROM (WITH x AS (SELECT id, tenure FROM customers) SELECT * FROM x) t',
      nested: true,
      oracle: false,
      user: 'support',
    },
    {
      name: 'support: the ungranted tickets through a nested WITH',
      sql: 'SELECT * FROM (WITH x AS (SELECT * FROM tickets) SELECT * FROM x) t',
      nested: true,
      oracle: false,
      user: 'support',
      tables: ['tickets'],
    },
  ];
  return cases.map((entry) => ({ form: 'regression', tables: ['customers'], ...entry }));
}
