/**
 * PostgreSQL's lexical rules for the guard's tokenizer (`sql-tokens.ts`), read as the server's own lexer (scan.l)
 * reads them: where a reader that is almost right would see a string or comment where the server sees code, the
 * server's reading is followed exactly, and the few forms whose reading depends on a setting or is hard to follow
 * (U& escapes, a backslash before a quote in a plain string) are refused.
 */
import type { SqlProblem } from './sql-problem.js';

/** One lexeme at the cursor: a comment to skip, a token to keep, or why the text is refused. */
export type PostgresLexeme = { kind: 'comment' | 'word' | 'quoted'; end: number } | SqlProblem;

const CLOSE_HINT = 'Close every string, quoted name and /* comment */.';
const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_CONT = /[\w$\u0080-\uffff]/;
/** A dollar-quote tag: like a name, but without `$`. */
const TAG_CONT = /[\w\u0080-\uffff]/;
const PLAIN_QUOTE_HINT = "Write a quote inside a string by doubling it, e.g. 'it''s'.";

/**
 * The lexeme starting at `at`, or `undefined` for the shared tokenizer to read (spaces and operator characters).
 * Words are read here because a name may contain `$` but a number may not: `1$$…$$` is the number 1 and a string.
 */
export function postgresLexeme(sql: string, at: number): PostgresLexeme | undefined {
  const ch = sql.charAt(at);
  const next = sql.charAt(at + 1);
  if (ch === '-' && next === '-') return { kind: 'comment', end: lineCommentEnd(sql, at) };
  if (ch === '/' && next === '*') return nestedCommentEnd(sql, at);
  if (ch === "'") return plainStringEnd(sql, at, at);
  if (ch === '"') return quotedNameEnd(sql, at);
  if (ch === '$') return dollarLexeme(sql, at);
  if (ch === '`') {
    return {
      reason: `backtick at character ${at + 1}`,
      hint: 'PostgreSQL quotes names with double quotes: "name".',
    };
  }
  if (/[uU]/.test(ch) && next === '&' && /['"]/.test(sql.charAt(at + 2))) {
    return {
      reason: `U&${sql.charAt(at + 2)}…${sql.charAt(at + 2)} unicode escapes at character ${at + 1}`,
      hint: 'Write names and strings with their characters as they are, without U& escapes.',
    };
  }
  if (!IDENT_CONT.test(ch)) return undefined;
  const number = /[0-9]/.test(ch);
  let end = at + 1;
  while (IDENT_CONT.test(sql.charAt(end)) && !(number && sql.charAt(end) === '$')) end += 1;
  if (end === at + 1 && sql.charAt(end) === "'") {
    // E'…' honours backslash escapes; B'…', X'…' (bits) and N'…' (national) are plain strings with a prefix.
    if (/[eE]/.test(ch)) return escapeStringEnd(sql, at);
    if (/[bBxXnN]/.test(ch)) return plainStringEnd(sql, at, end);
  }
  return { kind: 'word', end };
}

/** The server ends a `--` comment at '\r' as well as '\n', so text after a lone '\r' is code. */
function lineCommentEnd(sql: string, at: number): number {
  let end = at;
  while (end < sql.length && sql.charAt(end) !== '\n' && sql.charAt(end) !== '\r') end += 1;
  return end;
}

/**
 * Block comments nest: `/* /* *\/ code *\/` is all comment. A reader that stopped at the first `*\/` would take the
 * rest for code, and a quote there would open a string for it that hides the real code after the comment.
 */
function nestedCommentEnd(sql: string, start: number): PostgresLexeme {
  let depth = 0;
  let at = start;
  while (at < sql.length) {
    const pair = sql.slice(at, at + 2);
    if (pair === '/*') {
      depth += 1;
      at += 2;
    } else if (pair === '*/') {
      depth -= 1;
      at += 2;
      if (depth === 0) return { kind: 'comment', end: at };
    } else {
      at += 1;
    }
  }
  return { reason: `unterminated /* comment at character ${start + 1}`, hint: CLOSE_HINT };
}

/**
 * '…' with '' for a quote. With standard_conforming_strings on (the connector sets it) a backslash is an ordinary
 * character; with it off, or where the string continues an E'…' string (a string and the next one are one string
 * when only a line break, spaces and comments lie between, and the continuation keeps E's backslash escapes), `\'`
 * is a quote inside the string. Both readings agree unless a backslash precedes a quote, so that is refused.
 */
function plainStringEnd(sql: string, start: number, quote: number): PostgresLexeme {
  let at = quote + 1;
  while (at < sql.length) {
    const ch = sql.charAt(at);
    if (ch === '\\' && sql.charAt(at + 1) === "'") {
      return {
        reason: `backslash before a quote in the string at character ${start + 1}`,
        hint:
          "Whether that backslash escapes the quote depends on the server's settings. " +
          `${PLAIN_QUOTE_HINT} A string ending in a backslash can be written E'C:\\\\'.`,
      };
    }
    if (ch !== "'") at += 1;
    else if (sql.charAt(at + 1) === "'") at += 2;
    else return { kind: 'quoted', end: at + 1 };
  }
  return { reason: `unterminated '…' at character ${start + 1}`, hint: CLOSE_HINT };
}

/** E'…': a backslash escapes the next character (E'it\'s' is one string), '' is a quote as well. */
function escapeStringEnd(sql: string, start: number): PostgresLexeme {
  let at = start + 2;
  while (at < sql.length) {
    const ch = sql.charAt(at);
    if (ch === '\\') at += 2;
    else if (ch !== "'") at += 1;
    else if (sql.charAt(at + 1) === "'") at += 2;
    else return { kind: 'quoted', end: at + 1 };
  }
  return { reason: `unterminated E'…' at character ${start + 1}`, hint: CLOSE_HINT };
}

/** "…" with "" for a quote; no escapes. */
function quotedNameEnd(sql: string, start: number): PostgresLexeme {
  let at = start + 1;
  while (at < sql.length) {
    if (sql.charAt(at) !== '"') at += 1;
    else if (sql.charAt(at + 1) === '"') at += 2;
    else return { kind: 'quoted', end: at + 1 };
  }
  return { reason: `unterminated "…" at character ${start + 1}`, hint: CLOSE_HINT };
}

/**
 * `$$…$$` and `$tag$…$tag$` are strings that end at the first repeat of the opening delimiter (the server checks
 * every `$` inside, so a search for the delimiter finds the same end). `$1` is a parameter: the guard's statements
 * carry none, so one is refused. Any other `$` is a syntax error on the server, refused here as well.
 */
function dollarLexeme(sql: string, start: number): PostgresLexeme {
  if (/[0-9]/.test(sql.charAt(start + 1))) {
    return {
      reason: `parameter ${/^\$[0-9]+/.exec(sql.slice(start))?.[0] ?? '$'} at character ${start + 1}`,
      hint: 'Statements run without parameters: write the value itself.',
    };
  }
  let end = start + 1;
  if (IDENT_START.test(sql.charAt(end))) {
    while (TAG_CONT.test(sql.charAt(end))) end += 1;
  }
  if (sql.charAt(end) !== '$') return { reason: `'$' at character ${start + 1} outside a $$ string or a name` };
  const delimiter = sql.slice(start, end + 1);
  const close = sql.indexOf(delimiter, end + 1);
  if (close < 0)
    return { reason: `unterminated ${delimiter}…${delimiter} at character ${start + 1}`, hint: CLOSE_HINT };
  return { kind: 'quoted', end: close + delimiter.length };
}
