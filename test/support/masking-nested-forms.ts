/**
 * The nested forms of the masking battery (`masking-forms.ts` has the flat ones): a WITH inside a derived table,
 * a scalar subquery (bare or inside a function that quotes its argument in an error), IN and EXISTS subqueries, a
 * join, a LATERAL subquery, a top-level CTE's body, beside a second or a recursive CTE, and a WITH RECURSIVE that
 * is itself nested. The source's own CTEs (a CTE named like the table) go into the inner WITH.
 */
import {
  ERROR_WRAPPERS,
  type Form,
  inner,
  keyedCte,
  matchingCte,
  type Probed,
  type Source,
  TWO_ROWS,
  valuesCte,
} from './masking-forms.js';
import type { Dialect } from './masking-probes.js';

const ALL: readonly Dialect[] = ['mysql', 'postgres', 'sqlite'];

/** The nested statement of most forms: the function's values, as column v. */
const nestedValues = (s: Source, p: Probed, column: string) =>
  inner(s.ctes, [valuesCte(s, p, column)], `SELECT ${s.cte}.v FROM ${s.cte}`);
/** The ids of the rows meeting the condition, as column id. */
const nestedMatches = (s: Source, condition: (column: string) => string, column: string) =>
  inner(s.ctes, [matchingCte(s, condition, column)], `SELECT ${s.cte}.id FROM ${s.cte}`);
/** One value over the rows: the function applied to the nested CTE's column. */
const nestedSingle = (s: Source, p: Probed, column: string) => {
  const a = s.as('c');
  return inner(
    s.ctes,
    [`${s.cte} AS (SELECT ${a.column(column)} AS w FROM ${a.from})`],
    `SELECT ${p.single(`${s.cte}.w`)} FROM ${s.cte}`,
  );
};

export const NESTED_FORMS: readonly Form[] = [
  {
    name: 'nested-with-in-derived-table',
    nested: true,
    dialects: ALL,
    values: (s, p, column) => `SELECT d.v FROM (${nestedValues(s, p, column)}) d`,
    count: (s, condition, column) => `SELECT COUNT(*) AS n FROM (${nestedMatches(s, condition, column)}) d`,
  },
  {
    name: 'nested-with-in-scalar-subquery',
    nested: true,
    dialects: ALL,
    values: (s, p, column) => `SELECT (${nestedSingle(s, p, column)}) AS v`,
    count: (s, condition, column) =>
      `SELECT (${inner(s.ctes, [matchingCte(s, condition, column)], `SELECT COUNT(*) FROM ${s.cte}`)}) AS n`,
  },
  {
    name: 'nested-with-in-error',
    nested: true,
    dialects: ALL,
    values: (s, p, column, dialect) => `SELECT ${ERROR_WRAPPERS[dialect](`(${nestedSingle(s, p, column)})`)} AS v`,
  },
  {
    name: 'nested-with-in-in-subquery',
    nested: true,
    dialects: ALL,
    rowWise: true,
    readsCustomers: true,
    values: (s, p, column) =>
      `SELECT o.id FROM customers o WHERE o.id IN (${inner(s.ctes, [keyedCte(s, p, column)], `SELECT ${s.cte}.id FROM ${s.cte} WHERE ${s.cte}.v IS NOT NULL`)})`,
    count: (s, condition, column) =>
      `SELECT COUNT(*) AS n FROM customers o WHERE o.id IN (${nestedMatches(s, condition, column)})`,
  },
  {
    name: 'nested-with-in-exists-subquery',
    nested: true,
    dialects: ALL,
    rowWise: true,
    readsCustomers: true,
    values: (s, p, column) =>
      `SELECT o.id FROM customers o WHERE EXISTS (${inner(s.ctes, [keyedCte(s, p, column)], `SELECT 1 FROM ${s.cte} WHERE ${s.cte}.id = o.id AND ${s.cte}.v IS NOT NULL`)})`,
    count: (s, condition, column) =>
      `SELECT COUNT(*) AS n FROM customers o WHERE EXISTS (${inner(s.ctes, [matchingCte(s, condition, column)], `SELECT 1 FROM ${s.cte} WHERE ${s.cte}.id = o.id`)})`,
  },
  {
    name: 'nested-with-in-join',
    nested: true,
    dialects: ALL,
    rowWise: true,
    readsCustomers: true,
    values: (s, p, column) =>
      `SELECT o.id, d.v FROM customers o JOIN (${inner(s.ctes, [keyedCte(s, p, column)], `SELECT ${s.cte}.id, ${s.cte}.v FROM ${s.cte}`)}) d ON d.id = o.id`,
    count: (s, condition, column) =>
      `SELECT COUNT(*) AS n FROM customers o JOIN (${nestedMatches(s, condition, column)}) d ON d.id = o.id`,
  },
  {
    name: 'nested-with-in-top-level-cte',
    nested: true,
    dialects: ALL,
    values: (s, p, column) => `WITH y AS (${nestedValues(s, p, column)}) SELECT y.v FROM y`,
    count: (s, condition, column) => `WITH y AS (${nestedMatches(s, condition, column)}) SELECT COUNT(*) AS n FROM y`,
  },
  {
    name: 'nested-with-beside-second-cte',
    nested: true,
    dialects: ALL,
    values: (s, p, column) =>
      `WITH k AS (SELECT 2 AS two), y AS (SELECT d.v FROM (${nestedValues(s, p, column)}) d) SELECT y.v FROM y, k`,
    count: (s, condition, column) =>
      `WITH k AS (SELECT 2 AS two), y AS (SELECT d.id FROM (${nestedMatches(s, condition, column)}) d) SELECT COUNT(*) AS n FROM y, k`,
  },
  {
    name: 'nested-with-beside-recursive-cte',
    nested: true,
    dialects: ALL,
    values: (s, p, column) =>
      `WITH RECURSIVE ${TWO_ROWS} SELECT d.v FROM (${nestedValues(s, p, column)}) d CROSS JOIN r`,
    count: (s, condition, column) =>
      `WITH RECURSIVE ${TWO_ROWS} SELECT COUNT(*) AS n FROM (${nestedMatches(s, condition, column)}) d CROSS JOIN r`,
  },
  {
    name: 'nested-with-recursive',
    nested: true,
    dialects: ALL,
    values: (s, p, column) =>
      `SELECT d.v FROM (${inner(s.ctes, [TWO_ROWS, valuesCte(s, p, column)], `SELECT ${s.cte}.v FROM ${s.cte} CROSS JOIN r`, true)}) d`,
    count: (s, condition, column) =>
      `SELECT COUNT(*) AS n FROM (${inner(s.ctes, [TWO_ROWS, matchingCte(s, condition, column)], `SELECT ${s.cte}.id FROM ${s.cte} CROSS JOIN r`, true)}) d`,
  },
  {
    name: 'nested-with-in-union',
    nested: true,
    dialects: ALL,
    values: (s, p, column) =>
      `SELECT d.v FROM (${nestedValues(s, p, column)}) d UNION ALL SELECT e.v FROM (${nestedValues(s, p, column)}) e`,
    count: (s, condition, column) =>
      `SELECT COUNT(*) AS n FROM (SELECT d.id FROM (${nestedMatches(s, condition, column)}) d UNION ALL SELECT e.id FROM (${nestedMatches(s, condition, column)}) e) u`,
  },
  {
    name: 'nested-with-two-levels-down',
    nested: true,
    dialects: ALL,
    values: (s, p, column) => `SELECT d2.v FROM (SELECT d1.v FROM (${nestedValues(s, p, column)}) d1) d2`,
    count: (s, condition, column) =>
      `SELECT COUNT(*) AS n FROM (SELECT d1.id FROM (${nestedMatches(s, condition, column)}) d1) d2`,
  },
  {
    name: 'nested-with-in-lateral',
    nested: true,
    dialects: ['postgres'],
    values: (s, p, column) =>
      `SELECT l.v FROM (SELECT 1 AS one) o CROSS JOIN LATERAL (${nestedValues(s, p, column)}) l`,
    count: (s, condition, column) =>
      `SELECT COUNT(*) AS n FROM (SELECT 1 AS one) o CROSS JOIN LATERAL (${nestedMatches(s, condition, column)}) l`,
  },
];
