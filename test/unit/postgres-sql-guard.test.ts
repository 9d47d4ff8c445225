import { describe, expect, it } from 'vitest';
import { checkReadOnlySql, type SqlScope } from '../../src/db/guard/sql-guard.js';
import { tokenizeSql } from '../../src/db/guard/sql-tokens.js';
import {
  POSTGRES_ALLOWED,
  POSTGRES_REFUSED,
  POSTGRES_SCHEMAS,
  type PostgresAllowed,
} from '../support/postgres-sql-cases.js';

const scope: SqlScope = { schemas: POSTGRES_SCHEMAS };
const check = (sql: string, within: SqlScope = scope) => checkReadOnlySql(sql, 'postgres', within);
const message = (sql: string, within: SqlScope = scope) => {
  const verdict = check(sql, within);
  return verdict.ok ? '' : verdict.message;
};

const CATALOG =
  "plus information_schema's metadata views (tables, columns, views, key_column_usage, table_constraints, " +
  'referential_constraints, constraint_column_usage, constraint_table_usage, check_constraints) and these ' +
  'pg_catalog tables and views: pg_class, pg_namespace, pg_attribute, pg_attrdef, pg_type, pg_enum, pg_index, ' +
  'pg_am, pg_constraint, pg_description, pg_inherits, pg_partitioned_table, pg_collation, pg_extension, ' +
  'pg_tables, pg_views, pg_matviews, pg_indexes.';

/** The sentence each kind of refusal opens with. */
const ALLOWED: Record<PostgresAllowed, string> = {
  statement:
    'Only one read-only statement is allowed: SELECT, WITH … SELECT, EXPLAIN [(options)] (of a SELECT) ' +
    'or SHOW of a harmless setting.',
  schema: `Only the tables of the public, sales schemas can be read (unqualified names are in public), ${CATALOG}`,
};

describe('the guard on PostgreSQL', () => {
  it('has at least 60 hostile cases and 20 legitimate queries', () => {
    expect(POSTGRES_REFUSED.length).toBeGreaterThanOrEqual(60);
    expect(POSTGRES_ALLOWED.length).toBeGreaterThanOrEqual(20);
    expect(new Set(POSTGRES_REFUSED.map(([sql]) => sql)).size).toBe(POSTGRES_REFUSED.length);
  });

  it.each(POSTGRES_REFUSED)('refuses %j', (sql, reason, allowed) => {
    const verdict = check(sql);
    expect(verdict).toMatchObject({ ok: false, reason: expect.stringContaining(reason) });
    if (verdict.ok) return;
    expect(verdict.message.startsWith(ALLOWED[allowed])).toBe(true);
    expect(verdict.message).toContain(`Rejected: ${verdict.reason}.`);
    expect(verdict.message).toMatch(/Write a single SELECT/);
  });

  it.each(POSTGRES_ALLOWED)('allows %j', (sql) => {
    expect(check(sql)).toEqual({ ok: true, sql: sql.trim() });
  });

  it('hands on the statement without surrounding comments or the semicolon', () => {
    expect(check('/* a /* b */ c */ SELECT 1 -- done\r\n;')).toEqual({ ok: true, sql: 'SELECT 1' });
    expect(check('SELECT 1; /* done */')).toEqual({ ok: true, sql: 'SELECT 1' });
  });

  it('reads names as the server folds them, and compares schemas exactly', () => {
    expect(check('SELECT * FROM Sales.Targets').ok).toBe(true);
    expect(check('SELECT * FROM "sales"."targets"').ok).toBe(true);
    expect(check('SELECT * FROM "Sales".targets')).toMatchObject({ reason: 'Sales.targets is in another schema' });
    const mixed = { schemas: ['Shop'] };
    expect(check('SELECT * FROM "Shop".orders', mixed).ok).toBe(true);
    expect(check('SELECT * FROM Shop.orders', mixed)).toMatchObject({ reason: 'shop.orders is in another schema' });
    expect(check('SELECT * FROM INFORMATION_SCHEMA.COLUMNS').ok).toBe(true);
    expect(check('SELECT * FROM PG_CATALOG.PG_CLASS').ok).toBe(true);
    expect(check('SELECT * FROM "PG_CLASS"').ok).toBe(false);
  });

  it('allows only unqualified names and the metadata when no schema is configured', () => {
    expect(message('SELECT * FROM public.orders', { schemas: [] })).toContain(
      `Only the tables of the current schema can be read (unqualified names), ${CATALOG}`,
    );
    expect(check('SELECT * FROM orders JOIN pg_class c ON c.relname = orders.status', { schemas: [] }).ok).toBe(true);
    expect(check('SELECT 1')).toEqual({ ok: true, sql: 'SELECT 1' });
  });

  it('tells the model how to go on', () => {
    expect(message("SELECT pg_read_file('/etc/hostname')")).toContain(
      'Functions starting with pg_ allowed: pg_typeof, pg_column_size',
    );
    expect(message('SELECT pg_sleep(30)')).toContain('pg_sleep is allowed with a literal of at most 1 second.');
    expect(message("SELECT current_setting('data_directory')")).toContain(
      "current_setting('name') is allowed for these settings: timezone, datestyle",
    );
    expect(message('SHOW config_file')).toContain('SHOW is allowed for these settings: timezone');
    expect(message('SELECT * FROM pg_authid')).toContain('if it is an alias or a CTE, choose another name');
    expect(message('SELECT * FROM orders FETCH FIRST 3 ROWS ONLY')).toContain('FETCH FIRST (write LIMIT)');
    expect(message(String.raw`SELECT 'C:\'`)).toContain("Write a quote inside a string by doubling it, e.g. 'it''s'.");
    expect(message('SELECT U&"x" FROM orders')).toContain('without U& escapes');
    expect(message('SELECT `id` FROM orders')).toContain('PostgreSQL quotes names with double quotes');
    expect(message('SELECT id FROM orders WHERE id = $1')).toContain('write the value itself');
    expect(message('DESC orders')).toContain('information_schema.columns');
    expect(message('SELECT update FROM orders')).toContain('If update is a column or table name, quote it: "update".');
  });

  it('reads comments, strings and names as the server does', () => {
    const texts = (sql: string) => {
      const tokenized = tokenizeSql(sql, 'postgres');
      return tokenized.ok ? tokenized.tokens.map((token) => token.text) : tokenized.reason;
    };
    expect(texts('a /* x /* y */ z */ b')).toEqual(['a', 'b']);
    expect(texts('a -- x\r b')).toEqual(['a', 'b']);
    expect(texts('a--x\nb # c')).toEqual(['a', 'b', '#', 'c']);
    expect(texts(String.raw`E'it\'s' e'\\' 'it''s'`)).toEqual([String.raw`E'it\'s'`, String.raw`e'\\'`, "'it''s'"]);
    expect(texts("B'01' X'1f' N'x' some'x'")).toEqual(["B'01'", "X'1f'", "N'x'", 'some', "'x'"]);
    expect(texts('$$a$b$$ $t$ $$ $t$ a$$b 1$$c$$')).toEqual(['$$a$b$$', '$t$ $$ $t$', 'a$$b', '1', '$$c$$']);
    expect(texts('"a""b" @> ->> ::')).toEqual(['"a""b"', '@', '>', '-', '>', '>', ':', ':']);
    expect(texts('a /* x /* y */')).toBe('unterminated /* comment at character 3');
    expect(texts('$x$ never closed')).toBe('unterminated $x$…$x$ at character 1');
    expect(texts("E'\\'")).toBe("unterminated E'…' at character 1");
    expect(texts('SELECT $ 1')).toBe("'$' at character 8 outside a $$ string or a name");
  });
});
