/**
 * SHOW and DESCRIBE under the schema scope. Only the SHOW statements that describe tables are allowed, each read
 * word by word; the rest (PROCESSLIST, GRANTS, VARIABLES, STATUS, DATABASES, ENGINE …) describe the server, its
 * accounts and other sessions rather than the data.
 */
import { type SqlScope, schemaProblem, scopeProblem } from './schema-scope.js';
import type { SqlProblem } from './sql-problem.js';
import { nameOf, type SqlToken } from './sql-tokens.js';

const ALLOWED_SHOW =
  "Allowed: SHOW [FULL] TABLES, SHOW TABLE STATUS, SHOW [FULL] COLUMNS FROM t, SHOW INDEX FROM t, SHOW CREATE TABLE t, SHOW CREATE VIEW v, SHOW CHARACTER SET, SHOW COLLATION (optionally LIKE 'pattern'), or a SELECT on information_schema.TABLES or COLUMNS.";

const SERVER_SHOW = new Map<string, string>([
  ['PROCESSLIST', 'SHOW PROCESSLIST shows other sessions and their statements'],
  ['GRANTS', 'SHOW GRANTS shows accounts, their rights and password hashes'],
  ['PRIVILEGES', 'SHOW PRIVILEGES describes the server, not the data'],
  ['VARIABLES', 'SHOW VARIABLES shows server settings, file paths among them'],
  ['GLOBAL', 'SHOW GLOBAL … shows server settings and state'],
  ['SESSION', 'SHOW SESSION … shows server settings and state'],
  ['STATUS', 'SHOW STATUS shows server state'],
  ['DATABASES', "SHOW DATABASES lists schemas outside this database's scope"],
  ['SCHEMAS', "SHOW SCHEMAS lists schemas outside this database's scope"],
  ['ENGINE', "SHOW ENGINE shows server internals, other sessions' statements among them"],
]);

const kw = (token: SqlToken | undefined): string => token?.keyword ?? '';

/** `tokens` is one statement starting with SHOW. */
export function checkMysqlShow(tokens: readonly SqlToken[], scope: SqlScope): SqlProblem | undefined {
  let at = 1;
  while (kw(tokens[at]) === 'FULL' || kw(tokens[at]) === 'EXTENDED') at += 1;
  const word = kw(tokens[at]);
  const next = kw(tokens[at + 1]);
  if (word === 'TABLES') return fromSchema(tokens, at + 1, scope, 'SHOW TABLES');
  if (word === 'TABLE' && next === 'STATUS') return fromSchema(tokens, at + 2, scope, 'SHOW TABLE STATUS');
  if (['COLUMNS', 'FIELDS', 'INDEX', 'INDEXES', 'KEYS'].includes(word) && (next === 'FROM' || next === 'IN')) {
    const table = readName(tokens, at + 2);
    if (!table) return unreadable(`SHOW ${word}`);
    return tableProblem(table.parts, scope) ?? fromSchema(tokens, table.next, scope, `SHOW ${word}`);
  }
  if (word === 'CREATE' && (next === 'TABLE' || next === 'VIEW')) {
    const table = readName(tokens, at + 2);
    if (!table || table.next !== tokens.length) return unreadable(`SHOW CREATE ${next}`);
    return tableProblem(table.parts, scope);
  }
  if (word === 'CHARSET' || word === 'COLLATION') return likeTail(tokens, at + 1, `SHOW ${word}`);
  if (word === 'CHARACTER' && next === 'SET') return likeTail(tokens, at + 2, 'SHOW CHARACTER SET');
  const shown = tokens[at]?.text.toUpperCase() ?? '(nothing)';
  const reason = SERVER_SHOW.get(word) ?? `SHOW ${shown} is not one of the SHOW statements that describe tables`;
  return { reason, hint: ALLOWED_SHOW };
}

/** DESCRIBE/DESC/EXPLAIN of a table: `[schema.]table [column | 'pattern']` from `at`. */
export function checkDescribedTable(tokens: readonly SqlToken[], at: number, scope: SqlScope): SqlProblem | undefined {
  const table = readName(tokens, at);
  const rest = table ? tokens.length - table.next : 0;
  if (!table || rest > 1) {
    return { reason: `could not read the table of ${kw(tokens[0])}`, hint: 'Write DESCRIBE t or DESCRIBE t column.' };
  }
  return tableProblem(table.parts, scope);
}

function unreadable(form: string): SqlProblem {
  return { reason: `could not read ${form}`, hint: ALLOWED_SHOW };
}

/** `[FROM|IN schema] [LIKE 'pattern']` up to the end of the statement. */
function fromSchema(tokens: readonly SqlToken[], at: number, scope: SqlScope, form: string): SqlProblem | undefined {
  let next = at;
  if (kw(tokens[next]) === 'FROM' || kw(tokens[next]) === 'IN') {
    const schema = nameOf(tokens[next + 1]);
    if (schema === undefined) return unreadable(form);
    if (!scope.schemas.includes(schema))
      return scopeProblem(`${form} FROM ${schema}: ${schema} is another schema`, scope);
    next += 2;
  }
  if (kw(tokens[next]) === 'WHERE') {
    return { reason: `${form} … WHERE can hide a query`, hint: ALLOWED_SHOW };
  }
  return likeTail(tokens, next, form);
}

/** Nothing, or LIKE followed by one string, up to the end. */
function likeTail(tokens: readonly SqlToken[], at: number, form: string): SqlProblem | undefined {
  if (at === tokens.length) return undefined;
  const pattern = tokens[at + 1];
  const like = kw(tokens[at]) === 'LIKE' && pattern?.text.startsWith("'") === true && at + 2 === tokens.length;
  return like ? undefined : unreadable(form);
}

function tableProblem(parts: readonly string[], scope: SqlScope): SqlProblem | undefined {
  const [schema, table] = parts;
  return parts.length === 2 && schema !== undefined && table !== undefined
    ? schemaProblem(schema, table, scope)
    : undefined;
}

/** `name` or `schema.name` (words or quoted names) from `at`. */
function readName(tokens: readonly SqlToken[], at: number): { parts: string[]; next: number } | undefined {
  const parts: string[] = [];
  let next = at;
  for (;;) {
    const name = nameOf(tokens[next]);
    if (name === undefined) return undefined;
    parts.push(name);
    next += 1;
    if (tokens[next]?.text !== '.') break;
    next += 1;
  }
  return parts.length <= 2 ? { parts, next } : undefined;
}
