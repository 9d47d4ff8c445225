/**
 * The guard's statement rules for PostgreSQL (`sql-guard.ts` applies them): which first words are refused and why,
 * EXPLAIN's options, and SHOW, which may read only the settings `postgres-calls.ts` lists as safe.
 */
import { SAFE_SETTINGS, settingsHint } from './postgres-calls.js';
import type { SqlProblem } from './sql-problem.js';
import { nameOf, type SqlToken } from './sql-tokens.js';

const kw = (token: SqlToken | undefined): string => token?.keyword ?? '';

function reasons(effect: string, words: readonly string[]): Array<[string, string]> {
  return words.map((word) => [word, `${word} ${effect}`]);
}

/**
 * First words refused with a reason of their own, before the shared tables (`sql-guard.ts`), whose wording is
 * MySQL's where the two differ (DO, SET, LOAD, TABLE).
 */
export const POSTGRES_LEAD_REASONS = new Map<string, string>([
  ['COPY', 'COPY reads or writes server files and runs programs (TO/FROM PROGRAM)'],
  ['DO', 'DO runs an anonymous code block'],
  ['CALL', 'CALL runs a procedure'],
  ...reasons('sends or waits for notifications between sessions', ['LISTEN', 'NOTIFY', 'UNLISTEN']),
  ['SET', 'SET changes session settings (SET ROLE and SET SESSION AUTHORIZATION change the user)'],
  ['RESET', 'RESET changes session settings'],
  ['DISCARD', 'DISCARD resets session state'],
  ['LOCK', 'LOCK takes table locks'],
  ...reasons('runs a prepared statement (dynamic SQL)', ['PREPARE', 'EXECUTE', 'DEALLOCATE']),
  ...reasons('opens, reads or closes a cursor', ['DECLARE', 'FETCH', 'MOVE', 'CLOSE']),
  ...reasons('runs table maintenance', ['VACUUM', 'ANALYZE', 'ANALYSE', 'CLUSTER', 'REINDEX', 'CHECKPOINT']),
  ['REFRESH', "REFRESH MATERIALIZED VIEW rewrites a view's stored rows"],
  ['IMPORT', 'IMPORT FOREIGN SCHEMA creates foreign tables'],
  ...reasons('controls transactions', ['BEGIN', 'START', 'COMMIT', 'END', 'ROLLBACK', 'ABORT', 'SAVEPOINT']),
  ['RELEASE', 'RELEASE controls transactions'],
  ['LOAD', 'LOAD loads a shared library into the server'],
  ...reasons('changes privileges or owners', ['GRANT', 'REVOKE', 'REASSIGN']),
  ...reasons('changes comments or labels of objects', ['COMMENT', 'SECURITY']),
  ['MERGE', 'MERGE is a write'],
  ...reasons('is not in the allowed list (write SELECT * FROM t)', ['TABLE', 'VALUES']),
]);

/** Reserved words refused anywhere in a PostgreSQL statement, on top of the shared writes and schema changes. */
export const POSTGRES_WORD_PROBLEMS = new Map<string, string>([
  ['MERGE', 'MERGE is a write'],
  // `SELECT … UNION TABLE t` and `WITH a AS (TABLE t)` read a table by a form the SQL parser does not know.
  ['TABLE', 'TABLE t is not in the allowed list (write SELECT * FROM t)'],
]);

/** MySQL statements the model may reach for out of habit. */
export const POSTGRES_MISSING = new Map<string, SqlProblem>(
  ['DESCRIBE', 'DESC'].map((word): [string, SqlProblem] => [
    word,
    {
      reason: `${word} is MySQL-only`,
      hint: "List columns with SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 't'.",
    },
  ]),
);

/** EXPLAIN's options in parentheses (PostgreSQL 15–17); each takes at most one value, a word, number or string. */
const EXPLAIN_OPTIONS = new Set([
  'ANALYZE',
  'ANALYSE',
  'VERBOSE',
  'COSTS',
  'SETTINGS',
  'GENERIC_PLAN',
  'BUFFERS',
  'WAL',
  'TIMING',
  'SUMMARY',
  'MEMORY',
  'SERIALIZE',
  'FORMAT',
]);
const EXPLAIN_HINT = 'Write EXPLAIN [ANALYZE] [VERBOSE] SELECT … or EXPLAIN (ANALYZE, FORMAT JSON) SELECT ….';
const QUERY_STARTS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);

/**
 * The offset of the statement EXPLAIN applies to, past `ANALYZE`/`VERBOSE` or an option list in parentheses, or
 * why the options cannot be read. `EXPLAIN (SELECT …)` explains a parenthesised query.
 */
export function postgresExplainTarget(tokens: readonly SqlToken[]): number | SqlProblem {
  if (tokens[1]?.text === '(' && !QUERY_STARTS.has(kw(tokens[2])) && tokens[2]?.text !== '(') {
    let at = 2;
    for (;;) {
      if (!EXPLAIN_OPTIONS.has(kw(tokens[at]))) {
        return {
          reason: `EXPLAIN option ${tokens[at]?.text ?? '(nothing)'} is not one of ${[...EXPLAIN_OPTIONS].join(', ')}`,
          hint: EXPLAIN_HINT,
        };
      }
      at += 1;
      const value = tokens[at];
      if (value && value.text !== ',' && value.text !== ')') {
        const plain = value.kind === 'word' || (value.kind === 'quoted' && value.text.startsWith("'"));
        if (!plain)
          return { reason: `could not read the value of EXPLAIN option ${tokens[at - 1]?.text}`, hint: EXPLAIN_HINT };
        at += 1;
      }
      if (tokens[at]?.text === ')') return at + 1;
      if (tokens[at]?.text !== ',') return { reason: 'could not read the EXPLAIN options', hint: EXPLAIN_HINT };
      at += 1;
    }
  }
  let at = 1;
  while (['ANALYZE', 'ANALYSE', 'VERBOSE'].includes(kw(tokens[at]))) at += 1;
  return at;
}

/** SHOW name, SHOW TIME ZONE or SHOW TRANSACTION ISOLATION LEVEL, for the settings in SAFE_SETTINGS only. */
export function checkPostgresShow(tokens: readonly SqlToken[]): SqlProblem | undefined {
  const words = tokens.slice(1).map(kw).join(' ');
  if (words === 'TIME ZONE' || words === 'TRANSACTION ISOLATION LEVEL') return undefined;
  const name = nameOf(tokens[1]);
  if (words === 'ALL') {
    return { reason: 'SHOW ALL shows every server setting, file paths among them', hint: settingsHint('SHOW') };
  }
  if (tokens.length !== 2 || name === undefined) {
    return { reason: 'could not read the SHOW statement', hint: settingsHint('SHOW') };
  }
  if (SAFE_SETTINGS.has(name.toLowerCase())) return undefined;
  return { reason: `SHOW ${name}: ${name} is a server setting analyses do not need`, hint: settingsHint('SHOW') };
}
