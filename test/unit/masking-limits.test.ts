/**
 * Where the masking rewrite refuses instead of running (`nested-with.ts`) and what a server error keeps of the
 * values it quotes (`error-values.ts`); the statements run against real servers in masking-battery.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type SqlDialect, tokenizeSql } from '../../src/db/guard/sql-tokens.js';
import { withoutValues } from '../../src/policy/error-values.js';
import { nestedWithProblem } from '../../src/policy/nested-with.js';

const problemOf = (sql: string, dialect: SqlDialect, masked = ['customers']) => {
  const tokenized = tokenizeSql(sql, dialect);
  if (!tokenized.ok) throw new Error(tokenized.reason);
  return nestedWithProblem(tokenized.tokens, dialect, masked);
};

describe('nestedWithProblem', () => {
  it.each([
    'SELECT * FROM (WITH x AS (SELECT * FROM customers) SELECT email, phone FROM x) t',
    'SELECT (WITH x AS (SELECT * FROM customers) SELECT GROUP_CONCAT(email) FROM x)',
    'SELECT COUNT(*) FROM tickets WHERE email IN (WITH x AS (SELECT email FROM customers) SELECT email FROM x)',
    'WITH a AS (WITH x AS (SELECT * FROM customers) SELECT * FROM x) SELECT * FROM a',
    'SELECT * FROM (WITH RECURSIVE r AS (SELECT email FROM customers UNION SELECT email FROM r) SELECT * FROM r) t',
    // CTEs named like the words of WITH ROLLUP, WITH TIES, WITH TIME ZONE … are CTEs all the same.
    'SELECT * FROM (WITH data AS (SELECT * FROM customers) SELECT email FROM data) t',
    'SELECT * FROM (WITH time AS (SELECT * FROM customers) SELECT * FROM time) t',
    'SELECT * FROM (WITH rollup (e) AS (SELECT email FROM customers) SELECT e FROM rollup) t',
    'SELECT * FROM (WITH ties AS (SELECT * FROM customers) SELECT * FROM ties) t',
    'SELECT * FROM (WITH 1check AS (SELECT * FROM customers) SELECT email FROM 1check) t',
    'SELECT * FROM (WITH 1rollup AS (SELECT * FROM customers) SELECT email FROM 1rollup) t',
    'SELECT * FROM (WITH /* c */ no AS (SELECT * FROM customers) SELECT email FROM no) t',
  ])('refuses a WITH that is not the first on MySQL: %s', (sql) => {
    expect(problemOf(sql, 'mysql')).toMatch(/put every common table expression in the statement's leading WITH/);
  });

  it.each(['postgres', 'sqlite'] as const)('lets %s nest a WITH, whose scoping sees the masks', (dialect) => {
    expect(problemOf('SELECT * FROM (WITH x AS (SELECT * FROM customers) SELECT email FROM x) t', dialect)).toBe(
      undefined,
    );
  });

  it.each([
    ['mysql', 'WITH customers AS (SELECT 1) SELECT * FROM customers'],
    ['postgres', 'WITH x AS (SELECT 1), "customers"(a) AS (SELECT 2) SELECT * FROM customers'],
    ['sqlite', 'SELECT * FROM (WITH Customers AS MATERIALIZED (SELECT * FROM customers) SELECT * FROM Customers)'],
  ] as const)('refuses on %s a CTE named like a masked table: %s', (dialect, sql) => {
    expect(problemOf(sql, dialect)).toMatch(/may not be named like the masked table/);
  });

  it.each([
    'WITH x AS (SELECT email FROM customers) SELECT * FROM x',
    'SELECT segment, COUNT(*) FROM customers GROUP BY segment WITH ROLLUP',
    'SELECT id FROM customers ORDER BY id FETCH FIRST 2 ROWS WITH TIES',
  ])('lets the leading WITH and WITH ROLLUP through on MySQL: %s', (sql) => {
    expect(problemOf(sql, 'mysql')).toBe(undefined);
  });

  it('has nothing to say when no table is masked', () => {
    expect(problemOf('SELECT * FROM (WITH x AS (SELECT 1) SELECT * FROM x) t', 'mysql', [])).toBe(undefined);
  });
});

describe('withoutValues', () => {
  const sql = 'SELECT EXTRACTVALUE(1, CONCAT(0x7e, (SELECT emali FROM customers LIMIT 1)))';

  it.each([
    ["XPATH syntax error: '~ann.lee@example.com'", "XPATH syntax error: '…'"],
    ["XPATH syntax error: '~it's ann'", "XPATH syntax error: '…'"],
    ['invalid input syntax for type integer: "ann.lee@example.com"', 'invalid input syntax for type integer: "…"'],
    [
      "Truncated incorrect DOUBLE value: 'ann' for column 'x' at row 1",
      "Truncated incorrect DOUBLE value: '…' at row 1",
    ],
    ["Unterminated 'ann.lee", "Unterminated '…'"],
  ])('replaces quoted values: %s', (message, expected) => {
    expect(withoutValues(message, sql, 'mysql')).toBe(expected);
  });

  it.each([
    "Unknown column 'emali' in 'field list'",
    "Unknown column 'customers.emali' in 'where clause'",
    'column "emali" does not exist',
    "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near 'ann.lee' at line 1",
  ])('keeps names the statement wrote and syntax errors whole: %s', (message) => {
    expect(withoutValues(message, sql, 'mysql')).toBe(message);
  });
});
