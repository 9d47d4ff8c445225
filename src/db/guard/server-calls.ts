/**
 * Calls that reach past the data: functions that burn or block the server, inspect other sessions' locks or wait
 * on replication; system variables that hold file paths; SQLite pragma tables beyond table metadata (PostgreSQL's
 * are in `postgres-calls.ts`). Checked on tokens, so a call is seen wherever it sits (select list, WHERE, ORDER BY,
 * a subquery, a CTE).
 */

import type { SqlProblem } from './sql-problem.js';
import { nameOf, type SqlDialect, type SqlToken } from './sql-tokens.js';

/**
 * SLEEP up to this many seconds, as a literal, stays allowed: it is harmless at that size and shows up in
 * troubleshooting. It bounds one call, not the statement (`SELECT SLEEP(1) FROM big` sleeps once per row): that
 * bound is the server-side time limit, set on every statement.
 */
export const MAX_SLEEP_SECONDS = 1;

/** MySQL functions refused when called (a word followed by `(`), so a column of the same name stays readable. */
const MYSQL_CALLS = new Map<string, string>([
  ['BENCHMARK', 'BENCHMARK repeats an expression only to burn server time'],
  ...reasons('inspects named locks held by other sessions', ['IS_FREE_LOCK', 'IS_USED_LOCK']),
  ...reasons('waits on replication', [
    'MASTER_POS_WAIT',
    'SOURCE_POS_WAIT',
    'MASTER_GTID_WAIT',
    'WAIT_FOR_EXECUTED_GTID_SET',
    'WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS',
  ]),
]);

/**
 * System variables an analysis may read. Any other could tell where the server keeps its files, which
 * host and port it listens on, or how it is set up: a list of what is safe, not of what is not.
 */
const SAFE_VARIABLES = new Set(
  [
    'version',
    'version_comment',
    'sql_mode',
    'time_zone',
    'system_time_zone',
    'lower_case_table_names',
    'autocommit',
    'transaction_isolation',
    'tx_isolation',
    'div_precision_increment',
    'group_concat_max_len',
    'max_allowed_packet',
    'character_set_client',
    'character_set_connection',
    'character_set_results',
    'character_set_database',
    'collation_connection',
    'collation_database',
    'default_week_format',
    'lc_time_names',
  ].map((name) => name.toLowerCase()),
);

/** SQLite's eponymous pragma tables that describe a table; the others describe files, the build or the session. */
const PRAGMA_TABLES = new Set([
  'pragma_table_info',
  'pragma_table_xinfo',
  'pragma_index_list',
  'pragma_index_info',
  'pragma_index_xinfo',
  'pragma_foreign_key_list',
]);

const SQLITE_TABLES = new Map<string, string>([
  ['sqlite_dbpage', 'sqlite_dbpage reads raw database pages'],
  ['sqlite_dbdata', 'sqlite_dbdata reads raw database pages'],
  ['sqlite_dbptr', 'sqlite_dbptr reads raw database pages'],
  ['sqlite_temp_master', 'sqlite_temp_master describes the temp schema'],
  ['sqlite_temp_schema', 'sqlite_temp_schema describes the temp schema'],
]);

/** MySQL/MariaDB and SQLite; PostgreSQL's calls are in `postgres-calls.ts`. */
export function checkServerCalls(tokens: readonly SqlToken[], dialect: SqlDialect): SqlProblem | undefined {
  if (dialect === 'postgres') return undefined;
  for (const [at, token] of tokens.entries()) {
    const problem = dialect === 'mysql' ? mysqlCall(tokens, at) : sqliteCall(token);
    if (problem) return problem;
  }
  return undefined;
}

function mysqlCall(tokens: readonly SqlToken[], at: number): SqlProblem | undefined {
  const token = tokens[at];
  if (token?.kind === 'variable') return pathVariable(tokens, at);
  if (token?.kind !== 'word' || tokens[at + 1]?.text !== '(') return undefined;
  if (token.keyword === 'SLEEP') return sleepProblem(tokens, at + 2);
  const reason = MYSQL_CALLS.get(token.keyword);
  return reason ? { reason } : undefined;
}

/** SLEEP(literal) (PostgreSQL: pg_sleep) up to MAX_SLEEP_SECONDS; the literal's tokens run from `at` to the `)`. */
export function sleepProblem(tokens: readonly SqlToken[], at: number, name = 'SLEEP'): SqlProblem | undefined {
  const close = tokens.findIndex((token, index) => index >= at && token.text === ')');
  const literal = tokens
    .slice(at, close < 0 ? tokens.length : close)
    .map((token) => token.text)
    .join('');
  if (/^(\d+(\.\d*)?|\.\d+)$/.test(literal) && Number(literal) <= MAX_SLEEP_SECONDS) return undefined;
  return {
    reason: `${name}(${literal}) holds a connection for nothing`,
    hint: `${name} is allowed with a literal of at most ${MAX_SLEEP_SECONDS} second.`,
  };
}

/** `@@datadir`, `@@global.datadir`, `@@session.basedir` … */
function pathVariable(tokens: readonly SqlToken[], at: number): SqlProblem | undefined {
  const text = tokens[at]?.text ?? '';
  if (!text.startsWith('@@')) return undefined;
  const scoped = /^@@(global|session|local)$/i.test(text) && tokens[at + 1]?.text === '.';
  const name = scoped ? (nameOf(tokens[at + 2]) ?? '') : text.slice(2);
  if (SAFE_VARIABLES.has(name.toLowerCase())) return undefined;
  return {
    reason: `@@${name} is a server setting analyses do not need`,
    hint: `Server variables allowed: ${[...SAFE_VARIABLES].map((variable) => `@@${variable}`).join(', ')}.`,
  };
}

function sqliteCall(token: SqlToken): SqlProblem | undefined {
  const name = nameOf(token)?.toLowerCase();
  if (!name) return undefined;
  if (name.startsWith('pragma_') && !PRAGMA_TABLES.has(name)) {
    return {
      reason: `${name} is not table metadata`,
      hint: `Pragma tables allowed: ${[...PRAGMA_TABLES].join(', ')}.`,
    };
  }
  const reason = SQLITE_TABLES.get(name);
  return reason ? { reason } : undefined;
}

function reasons(effect: string, names: readonly string[]): Array<[string, string]> {
  return names.map((name) => [name, `${name} ${effect}`]);
}
