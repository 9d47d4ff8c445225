/**
 * More flat forms of the masking battery (`masking-forms.ts`): the table read inside the body of the statement's
 * own leading CTE (in a derived table, in a subquery), in a correlated subquery, under GROUP BY and HAVING, in a
 * conditional aggregate, and through a JSON array and back (JSON_TABLE on MariaDB, json_array_elements_text and
 * json_each elsewhere; the guard's parser does not read JSON_TABLE, so MariaDB refuses these).
 */
import { type Form, leading } from './masking-forms.js';
import type { Dialect } from './masking-probes.js';

const ALL: readonly Dialect[] = ['mysql', 'postgres', 'sqlite'];

/** The values of `value` over the rows of `from` that meet `where`, through a JSON array and back. */
function jsonRows(dialect: Dialect, value: string, from: string, where: string): string {
  if (dialect === 'mysql') {
    const array = `SELECT JSON_ARRAYAGG(${value}) AS a FROM ${from} WHERE ${where}`;
    return `SELECT j.v FROM (${array}) s, JSON_TABLE(s.a, '$[*]' COLUMNS (v VARCHAR(200) PATH '$')) AS j`;
  }
  if (dialect === 'postgres') {
    return `SELECT j.v FROM (SELECT json_agg(${value}) AS a FROM ${from} WHERE ${where}) s, json_array_elements_text(s.a) AS j (v)`;
  }
  return `SELECT j.value AS v FROM (SELECT json_group_array(${value}) AS a FROM ${from} WHERE ${where}) s, json_each(s.a) AS j`;
}

export const SUBQUERY_FORMS: readonly Form[] = [
  {
    name: 'derived-table-in-cte-body',
    nested: false,
    dialects: ALL,
    values: (s, p, column) => {
      const a = s.as('c');
      const body = `SELECT d.v FROM (SELECT ${p.row(a.column(column))} AS v FROM ${a.from}) d`;
      return leading(s.ctes, [`${s.cte} AS (${body})`], `SELECT ${s.cte}.v FROM ${s.cte}`);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const body = `SELECT d.id FROM (SELECT ${a.column('id')} AS id FROM ${a.from} WHERE ${condition(a.column(column))}) d`;
      return leading(s.ctes, [`${s.cte} AS (${body})`], `SELECT COUNT(*) AS n FROM ${s.cte}`);
    },
  },
  {
    name: 'subquery-in-cte-body',
    nested: false,
    dialects: ALL,
    readsCustomers: true,
    values: (s, p, column) => {
      const a = s.as('c');
      const body = `SELECT (SELECT ${p.single(a.column(column))} FROM ${a.from}) AS v`;
      return leading(s.ctes, [`${s.cte} AS (${body})`], `SELECT ${s.cte}.v FROM ${s.cte}`);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const match = `SELECT 1 FROM ${a.from} WHERE ${a.column('id')} = o.id AND ${condition(a.column(column))}`;
      const body = `SELECT o.id FROM customers o WHERE EXISTS (${match})`;
      return leading(s.ctes, [`${s.cte} AS (${body})`], `SELECT COUNT(*) AS n FROM ${s.cte}`);
    },
  },
  {
    name: 'correlated-scalar-subquery',
    nested: false,
    dialects: ALL,
    readsCustomers: true,
    values: (s, p, column) => {
      const a = s.as('c');
      const value = `SELECT ${p.single(a.column(column))} FROM ${a.from} WHERE ${a.column('id')} = o.id`;
      return leading(s.ctes, [], `SELECT o.id, (${value}) AS v FROM customers o`);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const matches = `SELECT COUNT(*) FROM ${a.from} WHERE ${a.column('id')} = o.id AND ${condition(a.column(column))}`;
      return leading(s.ctes, [], `SELECT COALESCE(SUM((${matches})), 0) AS n FROM customers o`);
    },
  },
  {
    name: 'group-by-having',
    nested: false,
    dialects: ALL,
    rowWise: true,
    values: (s, p, column) => {
      const a = s.as('c');
      const value = p.row(a.column(column));
      return leading(s.ctes, [], `SELECT ${value} AS v, COUNT(*) AS n FROM ${a.from} GROUP BY ${value}`);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const id = a.column('id');
      const groups = `SELECT ${id} AS id FROM ${a.from} GROUP BY ${id} HAVING SUM(CASE WHEN ${condition(a.column(column))} THEN 1 ELSE 0 END) > 0`;
      return leading(s.ctes, [], `SELECT COUNT(*) AS n FROM (${groups}) g`);
    },
  },
  {
    name: 'conditional-aggregate',
    nested: false,
    dialects: ALL,
    rowWise: true,
    values: (s, p, column) => {
      const a = s.as('c');
      return leading(s.ctes, [], `SELECT COUNT(DISTINCT ${p.row(a.column(column))}) AS v FROM ${a.from}`);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const sum = `COALESCE(SUM(CASE WHEN ${condition(a.column(column))} THEN 1 ELSE 0 END), 0)`;
      return leading(s.ctes, [], `SELECT ${sum} AS n FROM ${a.from}`);
    },
  },
  {
    name: 'json-table',
    nested: false,
    dialects: ALL,
    rowWise: true,
    values: (s, p, column, dialect) => {
      const a = s.as('c');
      return leading(s.ctes, [], jsonRows(dialect, p.row(a.column(column)), a.from, 'TRUE'));
    },
    count: (s, condition, column, dialect) => {
      const a = s.as('c');
      const rows = jsonRows(dialect, a.column('id'), a.from, condition(a.column(column)));
      return leading(s.ctes, [], `SELECT COUNT(*) AS n FROM (${rows}) t`);
    },
  },
];
