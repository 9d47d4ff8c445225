/**
 * Layer one, second half: where a read-only statement may read from. After `sql-guard.ts` has established that a
 * statement is one harmless read, this checks that it reads only the configured schema(s) (`schema-scope.ts`):
 *
 * - MySQL/MariaDB: a SQL parser finds every table (joins, subqueries, CTEs, unions, derived tables) and each
 *   qualified one must be in scope; a statement the parser cannot read is refused. Two token rules back the parser
 *   up: a server schema (`mysql`, `sys`, `performance_schema`, `information_schema` beyond its metadata) is refused
 *   wherever it qualifies a name, and every `a.b` must start with a table or alias the parser found, or a schema in
 *   scope, so a table the parser overlooks cannot carry another schema's name past it.
 * - PostgreSQL: the same with PostgreSQL's grammar, plus pg_catalog's name rules (`postgres-scope.ts`).
 * - SQLite: one file. ATTACH is refused by the guard (and by the worker, as it returns no rows), so the only other
 *   schema is `temp`; it and any qualifier other than `main` on a table are refused.
 */

import { checkDescribedTable, checkMysqlShow } from './mysql-show-scope.js';
import { readMysqlTableReferences } from './mysql-table-references.js';
import { checkPostgresScope } from './postgres-scope.js';
import { SERVER_SCHEMAS, type SqlScope, schemaProblem, scopeProblem } from './schema-scope.js';
import type { SqlProblem } from './sql-problem.js';
import { joinTokens, nameOf, type SqlDialect, type SqlToken } from './sql-tokens.js';

export type { SqlScope } from './schema-scope.js';

const kw = (token: SqlToken | undefined): string => token?.keyword ?? '';

/** `tokens`: one statement the guard has already accepted as read-only. */
export function checkSqlScope(
  tokens: readonly SqlToken[],
  dialect: SqlDialect,
  scope: SqlScope,
): SqlProblem | undefined {
  if (dialect === 'postgres') return checkPostgresScope(tokens, scope);
  return dialect === 'mysql' ? checkMysqlScope(tokens, scope) : checkSqliteScope(tokens, scope);
}

function checkMysqlScope(tokens: readonly SqlToken[], scope: SqlScope): SqlProblem | undefined {
  const lead = kw(tokens[0]);
  if (lead === 'SHOW') return checkMysqlShow(tokens, scope);
  let query = tokens;
  if (lead === 'EXPLAIN' || lead === 'DESCRIBE' || lead === 'DESC') {
    const at = explainTarget(tokens);
    const target = tokens[at];
    if (target?.text !== '(' && kw(target) !== 'SELECT' && kw(target) !== 'WITH') {
      return checkDescribedTable(tokens, at, scope);
    }
    query = tokens.slice(at);
  }
  const pairs = qualifiedPairs(query);
  const early = pairs.map((pair) => serverSchemaProblem(pair, scope)).find(Boolean);
  if (early) return early;
  const references = readMysqlTableReferences(joinTokens(query.map(leadingZero)));
  if ('reason' in references) return references;
  for (const { schema, table } of references.tables) {
    const problem = schema === null ? undefined : schemaProblem(schema, table, scope);
    if (problem) return problem;
  }
  const stray = pairs.find(
    ({ qualifier }) =>
      !scope.schemas.includes(qualifier) &&
      qualifier.toLowerCase() !== 'information_schema' &&
      !references.qualifiers.has(qualifier),
  );
  if (!stray) return undefined;
  return scopeProblem(
    `${stray.qualifier}.${stray.name}: ${stray.qualifier} is neither a table or alias of this statement nor a schema it may read`,
    scope,
  );
}

/** `.5` as `0.5`: the parser knows only the latter, and a number can hide no table. */
function leadingZero(token: SqlToken, at: number, tokens: readonly SqlToken[]): SqlToken {
  const previous = tokens[at - 1];
  const next = tokens[at + 1];
  const afterName = previous?.end === token.start && (previous.kind !== 'symbol' || previous.text === ')');
  if (token.text !== '.' || afterName || next?.start !== token.end || !/^\d/.test(next.text)) return token;
  return { ...token, text: '0.' };
}

/** The offset of what EXPLAIN/DESCRIBE applies to, past its options (ANALYZE, EXTENDED, FORMAT=JSON …). */
function explainTarget(tokens: readonly SqlToken[]): number {
  let at = 1;
  for (;;) {
    const word = kw(tokens[at]);
    if (word === 'ANALYZE' || word === 'EXTENDED' || word === 'PARTITIONS') at += 1;
    else if (word === 'FORMAT') at += tokens[at + 1]?.text === '=' ? 3 : 2;
    else return at;
  }
}

interface QualifiedPair {
  qualifier: string;
  name: string;
  /** The pair is followed by `(`: `schema.function(…)`. */
  call: boolean;
}

/**
 * Every `a.b` in the statement (names, quoted or not, either side of a `.`; `b` may be `*`), so `x.y.z` gives
 * `x.y` and `y.z`. A number on the right (`1.5`, `SELECT .5`) is a decimal, not a name.
 */
function qualifiedPairs(tokens: readonly SqlToken[]): QualifiedPair[] {
  const pairs: QualifiedPair[] = [];
  for (const [at, token] of tokens.entries()) {
    const right = tokens[at + 2];
    if (tokens[at + 1]?.text !== '.' || !right) continue;
    const qualifier = nameOf(token);
    const name = right.text === '*' ? '*' : nameOf(right);
    if (qualifier === undefined || name === undefined) continue;
    if ((token.kind === 'word' && /^\d+$/.test(token.text)) || (right.kind === 'word' && /^\d/.test(right.text))) {
      continue;
    }
    pairs.push({ qualifier, name, call: tokens[at + 3]?.text === '(' });
  }
  return pairs;
}

/** A server schema anywhere, even where it might be an alias; a function of any schema out of scope. */
function serverSchemaProblem(pair: QualifiedPair, scope: SqlScope): SqlProblem | undefined {
  const { qualifier, name, call } = pair;
  if (scope.schemas.includes(qualifier)) return undefined;
  if (call) return scopeProblem(`${qualifier}.${name}(…) calls a function of another schema`, scope);
  if (!SERVER_SCHEMAS.has(qualifier.toLowerCase())) return undefined;
  const problem = schemaProblem(qualifier, name, scope);
  if (problem && qualifier.toLowerCase() !== 'information_schema') {
    problem.hint = `${qualifier} holds the server's accounts and internals; if it is an alias here, choose another.`;
  }
  return problem;
}

const TABLE_LEADS = new Set(['FROM', 'JOIN']);

function checkSqliteScope(tokens: readonly SqlToken[], scope: SqlScope): SqlProblem | undefined {
  for (const [at, token] of tokens.entries()) {
    if (tokens[at + 1]?.text !== '.') continue;
    const qualifier = nameOf(token);
    const name = nameOf(tokens[at + 2]) ?? tokens[at + 2]?.text ?? '';
    const lower = qualifier?.toLowerCase();
    if (lower === 'temp' || lower === 'temporary') {
      const problem = scopeProblem(`${qualifier}.${name} reads the temp schema`, scope, 'sqlite');
      return { ...problem, hint: 'If temp is an alias here, choose another.' };
    }
    if (qualifier !== undefined && lower !== 'main' && TABLE_LEADS.has(kw(tokens[at - 1]))) {
      return scopeProblem(`${qualifier}.${name} names another schema`, scope, 'sqlite');
    }
  }
  return undefined;
}
