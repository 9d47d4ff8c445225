import { describe, expect, it } from 'vitest';
import { checkReadOnlySql, type SqlDialect } from '../../src/db/guard/sql-guard.js';
import { ACCEPTED, REJECTED } from '../support/sql-cases.js';

const ALLOWED: Record<SqlDialect, string> = {
  mysql:
    'Only one read-only statement is allowed: SELECT, WITH … SELECT, SHOW, DESCRIBE/DESC or EXPLAIN (of a SELECT).',
  sqlite: 'Only one read-only statement is allowed: SELECT, WITH … SELECT or EXPLAIN [QUERY PLAN] (of a SELECT).',
  postgres:
    'Only one read-only statement is allowed: SELECT, WITH … SELECT, EXPLAIN [(options)] (of a SELECT) or SHOW of a harmless setting.',
};

describe('checkReadOnlySql', () => {
  it.each(REJECTED)('%s rejects %j', (dialect, sql, reason) => {
    const verdict = checkReadOnlySql(sql, dialect);
    expect(verdict).toMatchObject({ ok: false, reason: expect.stringContaining(reason) });
    if (verdict.ok) return;
    expect(verdict.message).toContain(ALLOWED[dialect]);
    expect(verdict.message).toContain(`Rejected: ${verdict.reason}.`);
    expect(verdict.message).toMatch(/Write a single SELECT/);
  });

  it.each(ACCEPTED)('%s accepts %j', (dialect, sql, statement) => {
    expect(checkReadOnlySql(sql, dialect)).toEqual({ ok: true, sql: statement });
  });

  it('tells the model how to recover from the likely mistakes', () => {
    const messages = [
      checkReadOnlySql("SELECT * FROM t WHERE name = 'O\\'Brien'", 'mysql'),
      checkReadOnlySql('SELECT lock FROM t', 'mysql'),
      checkReadOnlySql('SHOW TABLES', 'sqlite'),
    ].map((verdict) => (verdict.ok ? '' : verdict.message));
    expect(messages[0]).toContain("Write a quote inside a string by doubling it, e.g. 'it''s'.");
    expect(messages[1]).toContain('If lock is a column or table name, quote it: `lock`.');
    expect(messages[2]).toContain("SELECT name FROM sqlite_master WHERE type = 'table'");
  });
});
