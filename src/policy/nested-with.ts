/**
 * Where the masking rewrite (`masked-view.ts`) cannot hold, so a statement is refused instead of run: the rewrite
 * puts one WITH in front of the statement and relies on every reference to a masked table reading that view.
 *
 * - MySQL/MariaDB: a CTE body inside a WITH that is not the statement's first does not see the outer CTEs, so there
 *   `customers` names the base table (`SELECT * FROM (WITH x AS (SELECT * FROM customers) …) t` read raw rows on
 *   MariaDB 10.11). Every WITH but the first is refused while a masked table is read.
 * - Every dialect: a CTE named like a masked table would shadow its view; whether an inner reference then reads the
 *   view or the user's CTE depends on the server's scoping rules, so it is refused too.
 */
import { nameOf, type SqlDialect, type SqlToken } from '../db/guard/sql-tokens.js';

/**
 * The WITHs inside a MySQL/MariaDB SELECT that open no common table expressions: `GROUP BY … WITH ROLLUP` and
 * `FETCH … WITH TIES`. Matched on the word as written (`1rollup` is a name to MariaDB) and only when no CTE's
 * `AS` or column list follows, because `WITH rollup AS (…)` and `WITH ties AS (…)` are CTEs named so.
 */
const NOT_A_CTE = new Set(['ROLLUP', 'TIES']);

/** Why the rewrite cannot mask `statement` for `maskedTables`, if it cannot. */
export function nestedWithProblem(
  tokens: readonly SqlToken[],
  dialect: SqlDialect,
  maskedTables: readonly string[],
): string | undefined {
  if (maskedTables.length === 0) return undefined;
  const masked = new Set(maskedTables.map((table) => table.toLowerCase()));
  const list = maskedTables.join(', ');
  for (const [at, token] of tokens.entries()) {
    if (at > 0 && dialect === 'mysql' && opensCtes(tokens, at)) {
      return `this statement reads a masked table (${list}), and on this database a WITH inside a statement does not see the masks: put every common table expression in the statement's leading WITH, or use a derived table (FROM (SELECT …) AS name).`;
    }
    const name = nameOf(token)?.toLowerCase();
    if (name !== undefined && masked.has(name) && definesCte(tokens, at)) {
      return `a common table expression may not be named like the masked table ${nameOf(token)}: choose another name.`;
    }
  }
  return undefined;
}

/** Any WITH but `WITH ROLLUP` / `WITH TIES` used as such: whatever name follows, it may open a CTE. */
function opensCtes(tokens: readonly SqlToken[], at: number): boolean {
  if (tokens[at]?.keyword !== 'WITH') return false;
  const next = tokens[at + 1];
  const after = tokens[at + 2];
  const namesCte = after?.keyword === 'AS' || after?.text === '(';
  return !(next?.kind === 'word' && NOT_A_CTE.has(next.text.toUpperCase()) && !namesCte);
}

/** `name AS (`, `name AS [NOT] MATERIALIZED (` or `name (columns) AS`: the name of a common table expression. */
function definesCte(tokens: readonly SqlToken[], at: number): boolean {
  const next = tokens[at + 1];
  if (next?.keyword === 'AS') {
    let after = at + 2;
    if (tokens[after]?.keyword === 'NOT') after += 1;
    if (tokens[after]?.keyword === 'MATERIALIZED') after += 1;
    return tokens[after]?.text === '(';
  }
  if (next?.text !== '(') return false;
  let depth = 0;
  for (let index = at + 1; index < tokens.length; index += 1) {
    const text = tokens[index]?.text;
    if (text === '(') depth += 1;
    if (text === ')' && --depth === 0) return tokens[index + 1]?.keyword === 'AS';
  }
  return false;
}
