/**
 * The tables one statement reads, for the audit trail, by the grammar of its dialect: PostgreSQL's for
 * PostgreSQL (after EXPLAIN and its options), MySQL's for the others, whose SQL it reads well enough to name
 * tables. Each table once; `undefined` when the statement cannot be read.
 */
import { readMysqlTableReferences } from './mysql-table-references.js';
import { postgresExplainTarget } from './postgres-statements.js';
import { readPostgresTableReferences } from './postgres-table-references.js';
import { type SqlDialect, tokenizeSql } from './sql-tokens.js';
import type { TableReference } from './table-references.js';

export function statementTables(sql: string, dialect: SqlDialect): TableReference[] | undefined {
  if (dialect !== 'postgres') {
    const references = readMysqlTableReferences(sql);
    return 'tables' in references ? once(references.tables) : undefined;
  }
  const tokenized = tokenizeSql(sql, 'postgres');
  if (!tokenized.ok) return undefined;
  const tokens = tokenized.tokens.filter((token) => token.text !== ';');
  const start = tokens[0]?.keyword === 'EXPLAIN' ? postgresExplainTarget(tokens) : 0;
  if (typeof start !== 'number') return undefined;
  const references = readPostgresTableReferences(tokens.slice(start));
  return 'tables' in references ? once(references.tables) : undefined;
}

function once(tables: TableReference[]): TableReference[] {
  const seen = new Map(tables.map((table) => [`${table.schema}.${table.table}`, table]));
  return [...seen.values()];
}
