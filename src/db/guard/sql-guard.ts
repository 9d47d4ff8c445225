/**
 * Layer one of read-only SQL: a statement guard run before any SQL reaches MySQL/MariaDB, PostgreSQL or SQLite. It
 * admits exactly one SELECT, WITH … SELECT, SHOW, DESCRIBE/DESC or EXPLAIN (of a SELECT), as each dialect has them,
 * and refuses writes, locks, server-file access and code hidden in comments, strings or CTEs. Then it checks what
 * the statement calls (`server-calls.ts`, `postgres-calls.ts`) and where it reads from (`sql-scope.ts`): only the
 * configured schema(s). PostgreSQL's statement rules are in `postgres-statements.ts`.
 *
 * Layer two is the connection: a read-only MySQL user, a READ ONLY PostgreSQL transaction, a read-only SQLite
 * handle. It also covers what no lexer can see, such as a stored function that writes. Because of that split the
 * guard prefers rejecting odd-but-harmless SQL (a column named `lock`, `'it\'s'`) to letting a write through: a
 * false rejection costs the model one retry with a message that says what to write instead.
 */
import { checkPostgresCalls } from './postgres-calls.js';
import {
  checkPostgresShow,
  POSTGRES_LEAD_REASONS,
  POSTGRES_MISSING,
  POSTGRES_WORD_PROBLEMS,
  postgresExplainTarget,
} from './postgres-statements.js';
import { NO_SCOPE, type SqlScope } from './schema-scope.js';
import { checkServerCalls } from './server-calls.js';
import type { SqlProblem } from './sql-problem.js';
import { checkSqlScope } from './sql-scope.js';
import { nameOf, type SqlDialect, type SqlToken, tokenizeSql } from './sql-tokens.js';

export type { SqlScope } from './schema-scope.js';
export type { SqlDialect } from './sql-tokens.js';

export type GuardVerdict =
  /** `sql`: the single statement from its first to its last token, without surrounding comments or the `;`. */
  | { ok: true; sql: string }
  /** `reason`: short and specific; `message`: for the model, says what is allowed and how to go on. */
  | { ok: false; reason: string; message: string };

const ALLOWED: Record<SqlDialect, string> = {
  mysql: 'SELECT, WITH … SELECT, SHOW, DESCRIBE/DESC or EXPLAIN (of a SELECT)',
  sqlite: 'SELECT, WITH … SELECT or EXPLAIN [QUERY PLAN] (of a SELECT)',
  postgres: 'SELECT, WITH … SELECT, EXPLAIN [(options)] (of a SELECT) or SHOW of a harmless setting',
};
const NEXT_STEP = 'Write a single SELECT (aggregate in SQL, or load the rows and continue in Python).';

/**
 * `scope`: the schemas qualified names may name (MySQL, PostgreSQL); default none, so only the current database's
 * (or schema's) tables (unqualified names) and the metadata of information_schema (and pg_catalog).
 */
export function checkReadOnlySql(sql: string, dialect: SqlDialect, scope: SqlScope = NO_SCOPE): GuardVerdict {
  const tokenized = tokenizeSql(sql, dialect);
  if (!tokenized.ok) return reject(tokenized, dialect);
  const statement = singleStatement(tokenized.tokens);
  if (!Array.isArray(statement)) return reject(statement, dialect);
  const problem =
    checkLead(statement, dialect) ??
    scanForWrites(statement, dialect) ??
    (dialect === 'postgres' ? checkPostgresCalls(statement) : checkServerCalls(statement, dialect)) ??
    checkSqlScope(statement, dialect, scope);
  if (problem) return reject(problem, dialect);
  const first = statement[0];
  const last = statement[statement.length - 1];
  return { ok: true, sql: first && last ? sql.slice(first.start, last.end) : '' };
}

function reject(problem: SqlProblem, dialect: SqlDialect): GuardVerdict {
  const hint = problem.hint ? `${problem.hint} ` : '';
  const allowed = problem.allowed ?? `Only one read-only statement is allowed: ${ALLOWED[dialect]}.`;
  const message = `${allowed} Rejected: ${problem.reason}. ${hint}${NEXT_STEP}`;
  return { ok: false, reason: problem.reason, message };
}

/** The tokens of the one statement, or why there is not exactly one. A `;` may be followed only by comments. */
function singleStatement(tokens: readonly SqlToken[]): SqlToken[] | SqlProblem {
  const statements: SqlToken[][] = [[]];
  for (const token of tokens) {
    if (token.text === ';') statements.push([]);
    else statements[statements.length - 1]?.push(token);
  }
  const nonEmpty = statements.filter((statement) => statement.length > 0);
  const [first] = statements;
  if (nonEmpty.length === 0) return { reason: 'empty statement (no SQL, only whitespace or comments)' };
  if (nonEmpty.length > 1) return { reason: `statement 2 of ${nonEmpty.length}: multiple statements` };
  if (!first || first.length === 0) return { reason: "empty statement before ';'" };
  if (statements.length > 2) return { reason: "extra ';' after the statement" };
  return first;
}

const kw = (token: SqlToken | undefined): string => token?.keyword ?? '';

/** The first keyword decides the kind of statement. */
function checkLead(tokens: readonly SqlToken[], dialect: SqlDialect): SqlProblem | undefined {
  let at = 0;
  while (tokens[at]?.text === '(') at += 1;
  const first = tokens[at];
  const word = kw(first);
  if (word === 'SELECT') return undefined;
  if (word === 'WITH') return checkWith(tokens, at + 1);
  if (!first) return { reason: 'no statement inside the parentheses' };
  if (at > 0) return { reason: `parenthesised ${first.text}: only a SELECT may be parenthesised` };
  const missing = MISSING[dialect]?.get(word);
  if (missing) return missing;
  if (word === 'EXPLAIN' || word === 'DESCRIBE' || word === 'DESC') return checkExplain(tokens, dialect);
  if (word === 'SHOW') return dialect === 'postgres' ? checkPostgresShow(tokens) : undefined;
  const known =
    (dialect === 'postgres' ? POSTGRES_LEAD_REASONS.get(word) : undefined) ??
    LEAD_REASONS.get(word) ??
    WORD_PROBLEMS.get(word) ??
    MYSQL_WORD_PROBLEMS.get(word);
  if (known) return { reason: known };
  if (!word) return { reason: `statement starts with ${first.text} instead of a keyword` };
  return { reason: `${word} is not a read-only query` };
}

/** WITH [RECURSIVE] name [(columns)] AS [NOT] [MATERIALIZED] (…) [, …] followed by the main statement. */
function checkWith(tokens: readonly SqlToken[], start: number): SqlProblem | undefined {
  const unreadable = { reason: 'could not read the WITH clause' };
  let at = kw(tokens[start]) === 'RECURSIVE' ? start + 1 : start;
  for (;;) {
    const name = tokens[at];
    if (!name || (name.kind !== 'word' && name.kind !== 'quoted')) return unreadable;
    at = tokens[at + 1]?.text === '(' ? skipParentheses(tokens, at + 1) : at + 1;
    if (kw(tokens[at]) !== 'AS') return unreadable;
    at += 1;
    if (kw(tokens[at]) === 'NOT') at += 1;
    if (kw(tokens[at]) === 'MATERIALIZED') at += 1;
    if (tokens[at]?.text !== '(') return unreadable;
    at = skipParentheses(tokens, at);
    if (tokens[at]?.text !== ',') break;
    at += 1;
  }
  while (tokens[at]?.text === '(') at += 1;
  const main = tokens[at];
  if (kw(main) === 'SELECT') return undefined;
  return { reason: `WITH … ${main ? main.text.toUpperCase() : '(nothing)'}: only WITH … SELECT is allowed` };
}

/** The offset after the `)` matching the `(` at `open`, or past the end when it is never closed. */
function skipParentheses(tokens: readonly SqlToken[], open: number): number {
  let depth = 0;
  for (let at = open; at < tokens.length; at += 1) {
    const text = tokens[at]?.text;
    if (text === '(') depth += 1;
    if (text === ')') depth -= 1;
    if (depth === 0) return at + 1;
  }
  return tokens.length;
}

const EXPLAIN_OPTIONS = new Set(['ANALYZE', 'EXTENDED', 'PARTITIONS']);
/** Statements MySQL can explain other than SELECT; any other word after EXPLAIN/DESCRIBE names a table. */
const EXPLAINABLE = new Set(['INSERT', 'REPLACE', 'UPDATE', 'DELETE', 'TABLE', 'VALUES', 'FOR']);

/**
 * MySQL: EXPLAIN, DESCRIBE and DESC are synonyms, each either describes a table or explains a statement (and
 * EXPLAIN ANALYZE runs it). SQLite: EXPLAIN [QUERY PLAN] statement. PostgreSQL: EXPLAIN [ANALYZE] [VERBOSE]
 * statement or EXPLAIN (options) statement, and ANALYZE runs it.
 */
function checkExplain(tokens: readonly SqlToken[], dialect: SqlDialect): SqlProblem | undefined {
  const word = kw(tokens[0]);
  let at = 1;
  if (dialect === 'sqlite') {
    if (kw(tokens[1]) === 'QUERY' && kw(tokens[2]) === 'PLAN') at = 3;
  } else if (dialect === 'postgres') {
    const target = postgresExplainTarget(tokens);
    if (typeof target !== 'number') return target;
    at = target;
  } else {
    for (;;) {
      if (EXPLAIN_OPTIONS.has(kw(tokens[at]))) at += 1;
      else if (kw(tokens[at]) === 'FORMAT') at += tokens[at + 1]?.text === '=' ? 3 : 2;
      else break;
    }
  }
  const target = tokens[at];
  const inner = kw(target);
  if (target?.text === '(' || inner === 'SELECT' || inner === 'WITH') return checkLead(tokens.slice(at), dialect);
  if (!target) return { reason: `${word} without a statement or table` };
  if (dialect !== 'mysql' || EXPLAINABLE.has(inner)) {
    return { reason: `${word} ${target.text.toUpperCase()}: only a SELECT may be explained` };
  }
  return undefined;
}

/** Reserved words that belong to no read-only statement; the scan skips strings and quoted names. */
const WORD_PROBLEMS = new Map<string, string>([
  ...reasons('is a write', ['UPDATE', 'DELETE', 'INSERT', 'REPLACE']),
  ...reasons('changes the schema', ['CREATE', 'DROP', 'ALTER', 'RENAME']),
  ['SET', 'SET assigns settings, variables or columns'],
]);

/** The same for MySQL alone: SQLite gives these words no meaning, so there they are names (`SELECT lock, call`). */
const MYSQL_WORD_PROBLEMS = new Map<string, string>([
  ...reasons('changes privileges', ['GRANT', 'REVOKE']),
  ...reasons('takes or releases table locks', ['LOCK', 'UNLOCK']),
  ...reasons('writes a file', ['OUTFILE', 'DUMPFILE']),
  ['CALL', 'CALL runs a stored procedure'],
  ['LOAD', 'LOAD DATA/XML loads a file into a table'],
  ['PROCEDURE', 'PROCEDURE ANALYSE runs a procedure over the result'],
]);

/** Functions with effects beyond the result; those that only burn or block the server are in `server-calls.ts`. */
const FUNCTION_PROBLEMS = new Map<string, string>([
  ...reasons('takes or releases a named lock', ['GET_LOCK', 'RELEASE_LOCK', 'RELEASE_ALL_LOCKS']),
  ...reasons('advances or sets a sequence (MariaDB)', ['NEXTVAL', 'SETVAL']),
  ...reasons('runs a shell command (lib_mysqludf_sys)', ['SYS_EXEC', 'SYS_EVAL']),
  ['LOAD_FILE', 'LOAD_FILE reads a server file'],
  ['LOAD_EXTENSION', 'LOAD_EXTENSION loads native code'],
  ['READFILE', 'READFILE reads a file'],
  ['WRITEFILE', 'WRITEFILE writes a file'],
  ['FTS3_TOKENIZER', 'FTS3_TOKENIZER can register native code'],
]);

/** Everything in the statement outside strings, quoted names and comments. */
function scanForWrites(tokens: readonly SqlToken[], dialect: SqlDialect): SqlProblem | undefined {
  const show = kw(tokens[0]) === 'SHOW';
  for (const [at, token] of tokens.entries()) {
    if (token.text === ':=') return { reason: "':=' assigns a variable" };
    const word = token.keyword;
    const next = tokens[at + 1];
    // Servers resolve a quoted name before '(' as a function (`SLEEP`(9), "load_extension"(…)):
    // no analysis needs that, and it would slip a call past every check of function names.
    if (token.kind === 'quoted' && next?.text === '(' && nameOf(token) !== undefined) {
      return {
        reason: `the quoted name ${token.text} is called as a function`,
        hint: 'Write function names without quotes.',
      };
    }
    if (token.kind !== 'word') continue;
    // SHOW CREATE TABLE t, SHOW PROCEDURE STATUS, SHOW CREATE PROCEDURE p
    if (show && at <= 2 && (word === 'CREATE' || word === 'PROCEDURE')) continue;
    // INSERT('abc', 1, 1, 'x') and REPLACE(s, 'a', 'b') are string functions; neither statement can be nested.
    if ((word === 'INSERT' || word === 'REPLACE') && next?.text === '(') continue;
    if (word === 'SET' && ['CHARACTER', 'CHARSET'].includes(kw(tokens[at - 1]))) continue;
    const special = sequenceProblem(tokens, at, dialect);
    if (special) return special;
    // PostgreSQL's functions are checked as calls, in `postgres-calls.ts`.
    const functionReason = dialect === 'postgres' ? undefined : FUNCTION_PROBLEMS.get(word);
    if (functionReason) return { reason: functionReason };
    const reason =
      WORD_PROBLEMS.get(word) ??
      (dialect === 'mysql' ? MYSQL_WORD_PROBLEMS.get(word) : undefined) ??
      (dialect === 'postgres' ? POSTGRES_WORD_PROBLEMS.get(word) : undefined);
    if (reason) {
      const quoted = dialect === 'mysql' ? `\`${token.text}\`` : `"${token.text}"`;
      return { reason, hint: `If ${token.text} is a column or table name, quote it: ${quoted}.` };
    }
  }
  return undefined;
}

/** Keywords whose meaning depends on the next word: FOR UPDATE, LOCK IN SHARE MODE, INTO OUTFILE, NEXT VALUE FOR. */
function sequenceProblem(tokens: readonly SqlToken[], at: number, dialect: SqlDialect): SqlProblem | undefined {
  const word = kw(tokens[at]);
  const next = tokens[at + 1];
  const nextWord = kw(next);
  if (word === 'FOR' && ['UPDATE', 'SHARE', 'NO', 'KEY'].includes(nextWord)) {
    const lock = tokens.slice(at, at + 4).map(kw);
    const end = lock.findIndex((part) => part === 'UPDATE' || part === 'SHARE');
    return { reason: `${lock.slice(0, end < 0 ? 2 : end + 1).join(' ')} takes locks` };
  }
  if (word === 'LOCK' && nextWord === 'IN' && kw(tokens[at + 2]) === 'SHARE') {
    return { reason: 'LOCK IN SHARE MODE takes locks' };
  }
  if (word === 'NEXT' && nextWord === 'VALUE') return { reason: 'NEXT VALUE FOR advances a sequence' };
  if (word !== 'INTO') return undefined;
  if (dialect === 'postgres') return { reason: 'SELECT … INTO creates a table' };
  if (nextWord === 'OUTFILE' || nextWord === 'DUMPFILE') return { reason: `INTO ${nextWord} writes a file` };
  if (next?.kind === 'variable' || next?.text === '@') return { reason: `INTO ${next.text} assigns variables` };
  return { reason: 'INTO writes rows or variables' };
}

function reasons(effect: string, words: readonly string[]): Array<[string, string]> {
  return words.map((word) => [word, `${word} ${effect}`]);
}

const SQLITE_TABLES_HINT =
  "List tables with SELECT name FROM sqlite_master WHERE type = 'table' and columns with SELECT * FROM pragma_table_info('t').";

const PRAGMA_HINT = "Read a pragma as a table in a SELECT, e.g. SELECT * FROM pragma_table_info('t').";
const SQLITE_MISSING = new Map<string, SqlProblem>([
  ...['SHOW', 'DESCRIBE', 'DESC'].map((word): [string, SqlProblem] => [
    word,
    { reason: `${word} is MySQL-only (SQLite has neither SHOW nor DESCRIBE)`, hint: SQLITE_TABLES_HINT },
  ]),
  ['PRAGMA', { reason: 'PRAGMA statements can change database settings', hint: PRAGMA_HINT }],
]);

/** Statements of other dialects, refused with a hint at this one's way. */
const MISSING: Partial<Record<SqlDialect, ReadonlyMap<string, SqlProblem>>> = {
  sqlite: SQLITE_MISSING,
  postgres: POSTGRES_MISSING,
};

/** First keywords refused with a reason of their own, on top of the word tables; any other is "not a read-only query". */
const LEAD_REASONS = new Map<string, string>([
  ...reasons('is a write', ['MERGE', 'UPSERT']),
  ...reasons('controls transactions', ['START', 'BEGIN', 'COMMIT', 'END', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'XA']),
  ...reasons('runs table maintenance', ['OPTIMIZE', 'ANALYZE', 'REPAIR', 'CHECK', 'CHECKSUM', 'CACHE', 'REINDEX']),
  ...reasons('runs dynamic SQL', ['PREPARE', 'EXECUTE', 'DEALLOCATE']),
  ...reasons('is an administrative command', ['FLUSH', 'KILL', 'SHUTDOWN', 'RESTART', 'INSTALL', 'UNINSTALL']),
  ...reasons('is an administrative command', ['RESET', 'PURGE', 'CHANGE', 'STOP', 'CLONE', 'IMPORT', 'BINLOG']),
  ...reasons('opens or closes a database file', ['ATTACH', 'DETACH']),
  ...reasons('is not in the allowed list (write SELECT * FROM t)', ['TABLE', 'VALUES']),
  ['TRUNCATE', 'TRUNCATE deletes every row of a table'],
  ['VACUUM', 'VACUUM rewrites the database file (VACUUM INTO writes a new one)'],
  ['SET', 'SET changes session or server settings'],
  ['DO', 'DO evaluates expressions only for their side effects'],
  ['HANDLER', 'HANDLER opens a low-level table cursor'],
  ['USE', 'USE switches the current database'],
]);
