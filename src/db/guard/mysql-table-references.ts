/**
 * The tables a MySQL/MariaDB query reads, found by a real SQL parser (node-sql-parser) rather than by pattern:
 * tables in joins (also parenthesised ones), subqueries, CTEs, unions and derived tables, with their schema
 * when the query names one. The schema-scope check (`sql-scope.ts`) decides which of them may be read.
 */
import mariadbBuild from 'node-sql-parser/build/mariadb.js';
import mysqlBuild from 'node-sql-parser/build/mysql.js';
import type { SqlProblem } from './sql-problem.js';
import { addTableList, near, type TableReference, type TableReferences } from './table-references.js';

/**
 * Each grammar reads some syntax the other refuses (the MySQL one: named windows, `->>`), so the MySQL grammar is
 * tried first and MariaDB's second. Either may misread a statement, which is why `sql-scope.ts` also requires every
 * `a.b` to start with a name the parse found.
 */
const PARSERS = [
  { parser: new mysqlBuild.Parser(), database: 'MySQL' },
  { parser: new mariadbBuild.Parser(), database: 'MariaDB' },
];

const UNPARSED_HINT =
  'The guard reads every statement with a SQL parser that does not know NATURAL JOIN, STRAIGHT_JOIN, index hints ' +
  '(USE/FORCE INDEX), <=>, WITHIN GROUP, JSON_TABLE, VALUES rows or FOR SYSTEM_TIME: write JOIN … ON/USING, ' +
  '(a = b OR (a IS NULL AND b IS NULL)), or do that step in Python.';

/** `sql` should come from `joinTokens`, so that the parser sees no comments the server might read differently. */
export function readMysqlTableReferences(sql: string): TableReferences | SqlProblem {
  let firstError: unknown;
  for (const { parser, database } of PARSERS) {
    try {
      const parsed = parser.parse(sql, { database });
      return collect(parsed);
    } catch (error) {
      firstError ??= error;
    }
  }
  return { reason: `the SQL parser could not read the statement${near(sql, firstError)}`, hint: UNPARSED_HINT };
}

/**
 * The parse's own `tableList` misses tables inside parenthesised joins, so the whole tree is walked as well: any
 * node with a `table` name and a `db` slot that is not a column reference is a table.
 */
function collect(parsed: unknown): TableReferences | SqlProblem {
  const tables: TableReference[] = [];
  const qualifiers = new Set<string>();
  let problem: SqlProblem | undefined;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.tableList)) problem ??= addTableList(record.tableList, { tables, qualifiers });
    if (typeof record.table === 'string' && 'db' in record && !('column' in record)) {
      tables.push({ schema: typeof record.db === 'string' ? record.db : null, table: record.table });
      qualifiers.add(record.table);
    }
    // Aliases of tables and derived tables, not of columns (`{expr: column, as}`).
    const derived = typeof record.expr === 'object' && record.expr !== null && 'ast' in record.expr;
    if (typeof record.as === 'string' && ('table' in record || derived)) qualifiers.add(record.as);
    const cteName = (record.name as { value?: unknown } | undefined)?.value;
    if ('stmt' in record && typeof cteName === 'string') qualifiers.add(cteName);
    for (const value of Object.values(record)) visit(value);
  };
  visit(parsed);
  return problem ?? { tables, qualifiers };
}
