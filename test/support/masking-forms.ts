/**
 * The nesting forms of the masking battery: where in a statement a masked table is read. Each form writes a
 * statement from a source (a table named one way, `masking-references.ts`) and a leaking function
 * (`masking-probes.ts`): `values` for the rows the function returns, `count` for one row counting the rows that
 * meet an oracle's condition. The flat forms are here and in `masking-subquery-forms.ts`; the nested ones, which
 * hold a WITH that is not the statement's leading one (where MariaDB's CTE bodies do not see the masks, issue 33),
 * in `masking-nested-forms.ts`.
 */
import type { Dialect } from './masking-probes.js';

/** A table named one way, under an alias. */
export interface Named {
  from: string;
  column(name: string): string;
}

export interface Source {
  table: string;
  /** The name of the statement's own common table expression (keywords among them: `data`, `time`, `no`). */
  cte: string;
  /** What to define first (a CTE named like the table): in the WITH the form reads the table from. */
  ctes: readonly string[];
  as(alias: string): Named;
}

/** A leaking function: per row (`row`), or one value over the rows (`single`: an aggregate, or MAX of `row`). */
export interface Probed {
  row(column: string): string;
  single(column: string): string;
}

export interface Form {
  name: string;
  /** Holds a WITH that is not the statement's leading one. */
  nested: boolean;
  dialects: readonly Dialect[];
  /** The function sits where an aggregate cannot (beside a key, in a recursive part, under a window). */
  rowWise?: boolean;
  /** Also reads customers, outside the source. */
  readsCustomers?: boolean;
  values(source: Source, probe: Probed, column: string, dialect: Dialect): string;
  count?(source: Source, condition: (column: string) => string, column: string, dialect: Dialect): string;
}

const ALL: readonly Dialect[] = ['mysql', 'postgres', 'sqlite'];

/** `body` under a leading WITH of `ctes` and `own`, when there are any. */
function leading(ctes: readonly string[], own: readonly string[], body: string, recursive = false): string {
  const all = [...ctes, ...own];
  return all.length === 0 ? body : `WITH ${recursive ? 'RECURSIVE ' : ''}${all.join(', ')} ${body}`;
}

/** A WITH inside the statement: the source's CTEs go here, with `own`. */
function inner(ctes: readonly string[], own: readonly string[], body: string, recursive = false): string {
  return `WITH ${recursive ? 'RECURSIVE ' : ''}${[...ctes, ...own].join(', ')} ${body}`;
}

const TWO_ROWS = 'r (rn) AS (SELECT 1 UNION ALL SELECT rn + 1 FROM r WHERE rn < 2)';

/** What makes the server quote a single value in an error, per dialect. */
const ERROR_WRAPPERS: Record<Dialect, (value: string) => string> = {
  mysql: (value) => `EXTRACTVALUE(1, CONCAT(0x7e, ${value}))`,
  postgres: (value) => `CAST(${value} AS integer)`,
  sqlite: (value) => `json(${value})`,
};

/** The statement's CTE: the source's rows with the function applied, as column v. */
const valuesCte = (s: Source, p: Probed, column: string) => {
  const a = s.as('c');
  return `${s.cte} AS (SELECT ${p.row(a.column(column))} AS v FROM ${a.from})`;
};
/** The statement's CTE: the ids of the source's rows meeting the condition. */
const matchingCte = (s: Source, condition: (column: string) => string, column: string) => {
  const a = s.as('c');
  return `${s.cte} AS (SELECT ${a.column('id')} AS id FROM ${a.from} WHERE ${condition(a.column(column))})`;
};
/** The statement's CTE: the source's ids beside the function's value. */
const keyedCte = (s: Source, p: Probed, column: string) => {
  const a = s.as('c');
  return `${s.cte} AS (SELECT ${a.column('id')} AS id, ${p.row(a.column(column))} AS v FROM ${a.from})`;
};

const FLAT: Form[] = [
  {
    name: 'top-level',
    nested: false,
    dialects: ALL,
    values: (s, p, column) =>
      leading(s.ctes, [], `SELECT ${p.row(s.as('c').column(column))} AS v FROM ${s.as('c').from}`),
    count: (s, condition, column) =>
      leading(s.ctes, [], `SELECT COUNT(*) AS n FROM ${s.as('c').from} WHERE ${condition(s.as('c').column(column))}`),
  },
  {
    name: 'derived-table',
    nested: false,
    dialects: ALL,
    values: (s, p, column) => {
      const a = s.as('c');
      return leading(s.ctes, [], `SELECT d.v FROM (SELECT ${p.row(a.column(column))} AS v FROM ${a.from}) d`);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const rows = `SELECT ${a.column('id')} AS id FROM ${a.from} WHERE ${condition(a.column(column))}`;
      return leading(s.ctes, [], `SELECT COUNT(*) AS n FROM (${rows}) d`);
    },
  },
  {
    name: 'scalar-subquery',
    nested: false,
    dialects: ALL,
    values: (s, p, column) => {
      const a = s.as('c');
      return leading(s.ctes, [], `SELECT (SELECT ${p.single(a.column(column))} FROM ${a.from}) AS v`);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      return leading(s.ctes, [], `SELECT (SELECT COUNT(*) FROM ${a.from} WHERE ${condition(a.column(column))}) AS n`);
    },
  },
  {
    name: 'scalar-in-error',
    nested: false,
    dialects: ALL,
    values: (s, p, column, dialect) => {
      const a = s.as('c');
      return leading(
        s.ctes,
        [],
        `SELECT ${ERROR_WRAPPERS[dialect](`(SELECT ${p.single(a.column(column))} FROM ${a.from})`)} AS v`,
      );
    },
  },
  {
    name: 'in-subquery',
    nested: false,
    dialects: ALL,
    rowWise: true,
    readsCustomers: true,
    values: (s, p, column) => {
      const a = s.as('c');
      const ids = `SELECT ${a.column('id')} FROM ${a.from} WHERE ${p.row(a.column(column))} IS NOT NULL`;
      return leading(s.ctes, [], `SELECT o.id FROM customers o WHERE o.id IN (${ids})`);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const ids = `SELECT ${a.column('id')} FROM ${a.from} WHERE ${condition(a.column(column))}`;
      return leading(s.ctes, [], `SELECT COUNT(*) AS n FROM customers o WHERE o.id IN (${ids})`);
    },
  },
  {
    name: 'exists-subquery',
    nested: false,
    dialects: ALL,
    rowWise: true,
    readsCustomers: true,
    values: (s, p, column) => {
      const a = s.as('c');
      const match = `SELECT 1 FROM ${a.from} WHERE ${a.column('id')} = o.id AND ${p.row(a.column(column))} IS NOT NULL`;
      return leading(s.ctes, [], `SELECT o.id FROM customers o WHERE EXISTS (${match})`);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const match = `SELECT 1 FROM ${a.from} WHERE ${a.column('id')} = o.id AND ${condition(a.column(column))}`;
      return leading(s.ctes, [], `SELECT COUNT(*) AS n FROM customers o WHERE EXISTS (${match})`);
    },
  },
  {
    name: 'top-level-cte',
    nested: false,
    dialects: ALL,
    values: (s, p, column) => leading(s.ctes, [valuesCte(s, p, column)], `SELECT ${s.cte}.v FROM ${s.cte}`),
    count: (s, condition, column) =>
      leading(s.ctes, [matchingCte(s, condition, column)], `SELECT COUNT(*) AS n FROM ${s.cte}`),
  },
  {
    name: 'multiple-ctes',
    nested: false,
    dialects: ALL,
    values: (s, p, column) =>
      leading(
        s.ctes,
        ['k AS (SELECT 2 AS two)', valuesCte(s, p, column), `y AS (SELECT ${s.cte}.v FROM ${s.cte}, k)`],
        'SELECT y.v FROM y',
      ),
    count: (s, condition, column) =>
      leading(
        s.ctes,
        ['k AS (SELECT 2 AS two)', matchingCte(s, condition, column), `y AS (SELECT COUNT(*) AS n FROM ${s.cte})`],
        'SELECT y.n FROM y, k',
      ),
  },
  {
    name: 'recursive-cte',
    nested: false,
    dialects: ALL,
    values: (s, p, column) => {
      const a = s.as('c');
      return leading(s.ctes, [TWO_ROWS], `SELECT ${p.row(a.column(column))} AS v FROM ${a.from} CROSS JOIN r`, true);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const body = `SELECT COUNT(*) AS n FROM ${a.from} CROSS JOIN r WHERE ${condition(a.column(column))}`;
      return leading(s.ctes, [TWO_ROWS], body, true);
    },
  },
  {
    name: 'recursive-cte-reading-the-table',
    nested: false,
    dialects: ALL,
    rowWise: true,
    values: (s, p, column) => {
      const [a, b] = [s.as('c'), s.as('c2')];
      const anchor = `SELECT ${a.column('id')}, ${p.row(a.column(column))} FROM ${a.from} WHERE ${a.column('id')} = 1`;
      const step = `SELECT ${b.column('id')}, ${p.row(b.column(column))} FROM ${b.from} JOIN r ON ${b.column('id')} = r.rid + 1`;
      return leading(s.ctes, [`r (rid, v) AS (${anchor} UNION ALL ${step})`], 'SELECT r.v FROM r', true);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const anchor = `SELECT ${a.column('id')} FROM ${a.from} WHERE ${condition(a.column(column))}`;
      const step = 'SELECT r.rid + 100 FROM r WHERE r.rid < 100';
      return leading(s.ctes, [`r (rid) AS (${anchor} UNION ALL ${step})`], 'SELECT COUNT(*) AS n FROM r', true);
    },
  },
  {
    name: 'union-all',
    nested: false,
    dialects: ALL,
    values: (s, p, column) => {
      const [a, b] = [s.as('c'), s.as('c2')];
      const body = `SELECT ${p.row(a.column(column))} AS v FROM ${a.from} UNION ALL SELECT ${p.row(b.column(column))} FROM ${b.from}`;
      return leading(s.ctes, [], body);
    },
    count: (s, condition, column) => {
      const [a, b] = [s.as('c'), s.as('c2')];
      const first = `SELECT ${a.column('id')} AS id FROM ${a.from} WHERE ${condition(a.column(column))}`;
      const second = `SELECT ${b.column('id')} FROM ${b.from} WHERE ${condition(b.column(column))}`;
      return leading(s.ctes, [], `SELECT COUNT(*) AS n FROM (${first} UNION ALL ${second}) u`);
    },
  },
  {
    // A parenthesised second part (SQLite has no parentheses around a compound's parts).
    name: 'union',
    nested: false,
    dialects: ALL,
    values: (s, p, column, dialect) => {
      const [a, b] = [s.as('c'), s.as('c2')];
      const second = `SELECT ${p.row(b.column(column))} FROM ${b.from}`;
      const body = `SELECT ${p.row(a.column(column))} AS v FROM ${a.from} UNION ${dialect === 'sqlite' ? second : `(${second})`}`;
      return leading(s.ctes, [], body);
    },
    count: (s, condition, column, dialect) => {
      const [a, b] = [s.as('c'), s.as('c2')];
      const first = `SELECT ${a.column('id')} AS id FROM ${a.from} WHERE ${condition(a.column(column))}`;
      const second = `SELECT ${b.column('id')} FROM ${b.from} WHERE ${condition(b.column(column))}`;
      const union = `${first} UNION ${dialect === 'sqlite' ? second : `(${second})`}`;
      return leading(s.ctes, [], `SELECT COUNT(*) AS n FROM (${union}) u`);
    },
  },
  {
    name: 'window-functions',
    nested: false,
    dialects: ALL,
    rowWise: true,
    values: (s, p, column) => {
      const a = s.as('c');
      const value = p.row(a.column(column));
      const id = a.column('id');
      const body = `SELECT ${id} AS id, LAG(${value}) OVER (ORDER BY ${id}) AS previous, COUNT(*) OVER (PARTITION BY ${value}) AS w FROM ${a.from}`;
      return leading(s.ctes, [], body);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const rows = `SELECT COUNT(*) OVER () AS w FROM ${a.from} WHERE ${condition(a.column(column))}`;
      return leading(s.ctes, [], `SELECT COALESCE(MAX(t.w), 0) AS n FROM (${rows}) t`);
    },
  },
  {
    name: 'lateral',
    nested: false,
    dialects: ['postgres'],
    values: (s, p, column) => {
      const a = s.as('c');
      const lateral = `SELECT ${p.row(a.column(column))} AS v FROM ${a.from}`;
      return leading(s.ctes, [], `SELECT l.v FROM (SELECT 1 AS one) o CROSS JOIN LATERAL (${lateral}) l`);
    },
    count: (s, condition, column) => {
      const a = s.as('c');
      const lateral = `SELECT ${a.column('id')} AS id FROM ${a.from} WHERE ${condition(a.column(column))}`;
      return leading(s.ctes, [], `SELECT COUNT(*) AS n FROM (SELECT 1 AS one) o CROSS JOIN LATERAL (${lateral}) l`);
    },
  },
];

export { ERROR_WRAPPERS, FLAT as FLAT_FORMS, inner, keyedCte, leading, matchingCte, TWO_ROWS, valuesCte };
