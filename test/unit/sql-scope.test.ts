import { describe, expect, it } from 'vitest';
import { checkReadOnlySql, type SqlDialect, type SqlScope } from '../../src/db/guard/sql-guard.js';
import { EXTRA_SCHEMA, IN_SCOPE, OUT_OF_SCOPE, OWN_SCHEMA, type ScopeRefusal } from '../support/sql-cases.js';

const scope: SqlScope = { schemas: [OWN_SCHEMA, EXTRA_SCHEMA] };

/** What each kind of refusal must tell the model it may do instead. */
const ALLOWED: Partial<Record<SqlDialect, Record<ScopeRefusal, string>>> = {
  mysql: {
    schema:
      `Only the tables of the ${OWN_SCHEMA}, ${EXTRA_SCHEMA} schemas can be read (unqualified names are in ${OWN_SCHEMA}), ` +
      "plus information_schema's table, column and key metadata (TABLES, COLUMNS, KEY_COLUMN_USAGE, STATISTICS, " +
      'TABLE_CONSTRAINTS, REFERENTIAL_CONSTRAINTS, VIEWS).',
    show: 'Allowed: SHOW [FULL] TABLES, SHOW TABLE STATUS, SHOW [FULL] COLUMNS FROM t, SHOW INDEX FROM t',
    statement: 'Only one read-only statement is allowed: SELECT, WITH … SELECT, SHOW, DESCRIBE/DESC or EXPLAIN',
  },
  sqlite: {
    schema:
      'Only the tables of this SQLite file can be read (unqualified names or main.name; no other schema, no ATTACH).',
    show: '',
    statement: 'Only one read-only statement is allowed: SELECT, WITH … SELECT or EXPLAIN',
  },
};

describe('the schema scope', () => {
  it('has at least 30 hostile cases across MySQL and SQLite', () => {
    expect(OUT_OF_SCOPE.length).toBeGreaterThanOrEqual(30);
    expect(OUT_OF_SCOPE.filter(([dialect]) => dialect === 'sqlite').length).toBeGreaterThanOrEqual(10);
  });

  it.each(OUT_OF_SCOPE)('%s refuses %j', (dialect, sql, reason, refusal) => {
    const verdict = checkReadOnlySql(sql, dialect, scope);
    expect(verdict).toMatchObject({ ok: false, reason: expect.stringContaining(reason) });
    if (verdict.ok) return;
    expect(verdict.message).toContain(ALLOWED[dialect]?.[refusal]);
    expect(verdict.message).toContain(`Rejected: ${verdict.reason}.`);
  });

  it.each(IN_SCOPE)('%s allows %j', (dialect, sql) => {
    expect(checkReadOnlySql(sql, dialect, scope)).toEqual({ ok: true, sql });
  });

  it('allows only unqualified names and metadata when no schema is configured', () => {
    const refused = checkReadOnlySql(`SELECT * FROM ${OWN_SCHEMA}.orders`, 'mysql');
    expect(refused).toMatchObject({ ok: false, reason: `${OWN_SCHEMA}.orders is in another schema` });
    expect(refused.ok ? '' : refused.message).toContain('Only the tables of the current database can be read');
    expect(checkReadOnlySql('SELECT * FROM orders JOIN information_schema.COLUMNS c ON 1', 'mysql').ok).toBe(true);
  });

  it('matches a configured schema exactly, and the server schemas in any case', () => {
    const lower = { schemas: ['shop'] };
    expect(checkReadOnlySql('SELECT * FROM shop.orders', 'mysql', lower).ok).toBe(true);
    expect(checkReadOnlySql('SELECT * FROM Shop.orders', 'mysql', lower).ok).toBe(false);
    expect(checkReadOnlySql('SELECT * FROM `Information_Schema`.`Columns`', 'mysql', lower).ok).toBe(true);
    expect(checkReadOnlySql('SELECT * FROM Information_Schema.Processlist', 'mysql', lower).ok).toBe(false);
  });

  it('says how to go on when the parser cannot read a statement or a name looks like a server schema', () => {
    const unparsed = checkReadOnlySql('SELECT * FROM orders NATURAL JOIN customers', 'mysql', scope);
    expect(unparsed.ok ? '' : unparsed.message).toContain('write JOIN … ON/USING');
    const alias = checkReadOnlySql('SELECT sys.id FROM orders sys', 'mysql', scope);
    expect(alias.ok ? '' : alias.message).toContain('if it is an alias here, choose another');
    const sleep = checkReadOnlySql('SELECT SLEEP(30)', 'mysql', scope);
    expect(sleep.ok ? '' : sleep.message).toContain('SLEEP is allowed with a literal of at most 1 second.');
  });
});
