/**
 * The tables a PostgreSQL query reads, found by node-sql-parser's PostgreSQL grammar: tables in joins (also
 * parenthesised ones), subqueries, CTEs, unions, LATERAL and derived tables, with their schema when the query names
 * one. The parser reads the guard's tokens, not the raw text, so that it sees the code the server sees
 * (`parserText`); `postgres-scope.ts` decides which tables may be read.
 */
import postgresBuild from 'node-sql-parser/build/postgresql.js';
import type { SqlProblem } from './sql-problem.js';
import { joinTokens, type SqlToken } from './sql-tokens.js';
import { addTableList, near, type TableReference, type TableReferences } from './table-references.js';

const parser = new postgresBuild.Parser();

const UNPARSED_HINT =
  'The guard reads every statement with a SQL parser that does not know FETCH FIRST (write LIMIT), GROUPING SETS ' +
  '(write ROLLUP, CUBE or UNION ALL), ROWS FROM, (composite).field, COLLATE in a condition, the @? operator, ' +
  'FILTER together with OVER, or RANGE frames with an interval: write the statement another way, or do that step ' +
  'in Python.';

/** `tokens`: one SELECT or WITH … SELECT (EXPLAIN and its options already taken off). */
export function readPostgresTableReferences(tokens: readonly SqlToken[]): TableReferences | SqlProblem {
  const sql = parserText(tokens);
  try {
    return collect(parser.parse(sql, { database: 'postgresql' }));
  } catch (error) {
    return { reason: `the SQL parser could not read the statement${near(sql, error)}`, hint: UNPARSED_HINT };
  }
}

/**
 * The statement as the parser should read it. Unquoted names fold to lower case as on the server, so the names the
 * parser reports are the server's. Every string (E'…', $$…$$, B'…' too, which the parser reads differently or not at
 * all) becomes 's': no string can name a table. A few forms the grammar lacks are rewritten where they cannot name
 * a table either: WITH ORDINALITY, [NOT] MATERIALIZED after a CTE's AS and the NOT of IS NOT DISTINCT FROM are
 * dropped, `substring(s FROM a FOR b)` becomes `substring(s, a, b)` (a subquery inside would sit in parentheses of
 * its own), current_user and its kind become `user`, and an operator the grammar lacks (`@@`, `<->`, `^`, `|/` …)
 * becomes `-`, which it reads both between and before operands.
 */
function parserText(tokens: readonly SqlToken[]): string {
  const kw = (at: number) => tokens[at]?.keyword ?? '';
  const calls: string[] = [];
  const text: SqlToken[] = [];
  let operatorEnd = -1;
  for (const [at, token] of tokens.entries()) {
    const word = kw(at);
    if (at < operatorEnd) continue;
    const operator = operatorRun(tokens, at);
    if (operator) {
      operatorEnd = operator.next;
      text.push({ ...token, text: KNOWN_OPERATORS.has(operator.text) ? operator.text : '-', end: operator.end });
      continue;
    }
    if (token.text === '(') calls.push(kw(at - 1));
    if (token.text === ')') calls.pop();
    if (word === 'WITH' && kw(at + 1) === 'ORDINALITY') continue;
    if (word === 'ORDINALITY' && kw(at - 1) === 'WITH') continue;
    if (word === 'MATERIALIZED' && (kw(at - 1) === 'AS' || kw(at - 2) === 'AS')) continue;
    if (word === 'NOT' && kw(at + 1) === 'MATERIALIZED' && kw(at - 1) === 'AS') continue;
    if (word === 'NOT' && kw(at - 1) === 'IS' && kw(at + 1) === 'DISTINCT') continue;
    if ((word === 'FROM' || word === 'FOR') && calls[calls.length - 1] === 'SUBSTRING') {
      text.push({ ...token, text: ',' });
    } else if (SESSION_WORDS.has(word) && tokens[at + 1]?.text !== '(') {
      text.push({ ...token, text: 'user' });
    } else if (token.kind === 'word') {
      text.push({ ...token, text: token.text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase()) });
    } else if (token.kind === 'quoted' && !token.text.startsWith('"')) {
      text.push({ ...token, text: "'s'" });
    } else {
      text.push(token);
    }
  }
  return joinTokens(text);
}

const SESSION_WORDS = new Set(['CURRENT_USER', 'SESSION_USER', 'CURRENT_ROLE', 'CURRENT_CATALOG']);

const OPERATOR_CHARS = /^[~!@#^&|?+\-*/%<>=]$/;
/** The operators node-sql-parser's PostgreSQL grammar reads. */
const KNOWN_OPERATORS = new Set(
  [
    '+',
    '-',
    '*',
    '/',
    '%',
    '=',
    '<',
    '>',
    '<=',
    '>=',
    '<>',
    '!=',
    '||',
    '~',
    '~*',
    '!~',
    '!~*',
    '?',
    '?|',
    '?&',
  ].concat(['&&', '@>', '<@', '->', '->>', '#>', '#>>', '#-', '=>']),
);

/** The operator whose characters start at `at`, touching one another, with the offset of the token after it. */
function operatorRun(tokens: readonly SqlToken[], at: number): { text: string; end: number; next: number } | undefined {
  const isOperator = (token: SqlToken | undefined) => token?.kind === 'symbol' && OPERATOR_CHARS.test(token.text);
  let next = at;
  while (isOperator(tokens[next]) && (next === at || tokens[next - 1]?.end === tokens[next]?.start)) next += 1;
  const run = tokens.slice(at, next);
  const last = run[run.length - 1];
  return last ? { text: run.map((token) => token.text).join(''), end: last.end, next } : undefined;
}

/**
 * The parse's own `tableList` misses tables inside parenthesised joins, so the whole tree is walked as well: any
 * node with a `table` name that is not a column reference is a table (`db.schema.table` has both slots).
 */
function collect(parsed: unknown): TableReferences | SqlProblem {
  const tables: TableReference[] = [];
  const qualifiers = new Set<string>();
  let problem: SqlProblem | undefined;
  const fromItems = (items: unknown[]): void => {
    for (const item of items as Array<{ as?: unknown; expr?: { type?: unknown; expr?: unknown } }>) {
      // A function's alias comes with its column list: `generate_series(1, 3) AS g(n)` gives 'g(n)'.
      if (typeof item?.as === 'string') qualifiers.add(item.as.replace(/\(.*$/s, ''));
      if (item?.expr?.type === 'tables' && Array.isArray(item.expr.expr)) fromItems(item.expr.expr);
    }
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.tableList)) problem ??= addTableList(record.tableList, { tables, qualifiers });
    if (typeof record.table === 'string' && !('column' in record) && record.type !== 'column_ref') {
      const schema = [record.schema, record.db].find((slot): slot is string => typeof slot === 'string');
      tables.push({ schema: schema ?? null, table: record.table });
      qualifiers.add(record.table);
    }
    if (Array.isArray(record.from)) fromItems(record.from);
    const cteName = (record.name as { value?: unknown } | undefined)?.value;
    if ('stmt' in record && typeof cteName === 'string') qualifiers.add(cteName);
    for (const value of Object.values(record)) visit(value);
  };
  visit(parsed);
  return problem ?? { tables, qualifiers };
}
