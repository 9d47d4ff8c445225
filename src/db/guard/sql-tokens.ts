/**
 * A small SQL tokenizer for the read-only guard (`sql-guard.ts`): just enough of the MySQL/MariaDB, SQLite and
 * PostgreSQL lexers (the last in `postgres-tokens.ts`) to tell code from strings, quoted names and comments. Where
 * two servers, or two modes of one server, could read the same text differently, it takes the reading that exposes
 * more code, or refuses the text.
 */
import { postgresLexeme } from './postgres-tokens.js';
import type { SqlProblem } from './sql-problem.js';

/** Whose lexical rules apply. */
export type SqlDialect = 'mysql' | 'sqlite' | 'postgres';

export interface SqlToken {
  /**
   * `word`: keyword, name or number; `quoted`: string (PostgreSQL: also E'…', B'…', X'…', N'…', $$…$$) or quoted
   * name; `variable`: `@x`, `@@x` (not PostgreSQL, where `@` is an operator); `symbol`: the rest.
   */
  kind: 'word' | 'quoted' | 'variable' | 'symbol';
  text: string;
  /**
   * Words only, else `''`: the text in upper case without a leading number, because MySQL reads `1e0FOR` and
   * `1.5LOCK` as a number followed by a keyword.
   */
  keyword: string;
  /** Offsets into the source, `text === sql.slice(start, end)`. */
  start: number;
  end: number;
}

export type TokenizeResult = { ok: true; tokens: SqlToken[] } | ({ ok: false } & SqlProblem);

const SPACE = new Set([' ', '\t', '\n', '\r', '\f', '\v']);
/**
 * Control characters other than tab, line feed and carriage return have no place in analysis SQL, and
 * servers disagree on what they mean (a comment start, whitespace): refused, so the guard and the
 * server always read the same statement.
 */
function firstControl(sql: string): number {
  for (let index = 0; index < sql.length; index += 1) {
    const code = sql.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f) return index;
  }
  return -1;
}
const WORD_CHAR = /[\w$\u0080-\uffff]/;
const LEADING_NUMBER = /^[0-9]*(?:E[0-9]+)?/;
const CLOSE_HINT = 'Close every string, quoted name and /* comment */.';

export function tokenizeSql(sql: string, dialect: SqlDialect): TokenizeResult {
  if (sql.includes('\0')) return { ok: false, reason: 'NUL character in the SQL' };
  const control = firstControl(sql);
  if (control >= 0) {
    const code = sql.charCodeAt(control).toString(16).padStart(2, '0');
    return { ok: false, reason: `control character 0x${code} at character ${control + 1}` };
  }
  const tokens: SqlToken[] = [];
  const push = (kind: SqlToken['kind'], start: number, end: number) => {
    const text = sql.slice(start, end);
    const keyword = kind === 'word' ? text.toUpperCase().replace(LEADING_NUMBER, '') : '';
    tokens.push({ kind, text, keyword, start, end });
    return end;
  };
  let at = 0;
  while (at < sql.length) {
    const ch = sql.charAt(at);
    const next = sql.charAt(at + 1);
    const lexeme = dialect === 'postgres' && !SPACE.has(ch) ? postgresLexeme(sql, at) : undefined;
    if (lexeme && 'reason' in lexeme) {
      return { ok: false, ...lexeme };
    } else if (lexeme) {
      at = lexeme.kind === 'comment' ? lexeme.end : push(lexeme.kind, at, lexeme.end);
    } else if (SPACE.has(ch)) {
      at += 1;
    } else if (startsLineComment(sql, at, dialect)) {
      at = lineEnd(sql, at);
    } else if (ch === '/' && next === '*') {
      const executable = dialect === 'mysql' ? executableComment(sql, at) : undefined;
      if (executable) return { ok: false, ...executable };
      const close = sql.indexOf('*/', at + 2);
      if (close < 0) return { ok: false, reason: `unterminated /* comment at character ${at + 1}`, hint: CLOSE_HINT };
      at = close + 2;
    } else if (ch === "'" || ch === '"' || ch === '`' || (ch === '[' && dialect === 'sqlite')) {
      const end = quotedEnd(sql, at, dialect);
      if (typeof end !== 'number') return { ok: false, ...end };
      at = push('quoted', at, end);
    } else if (ch === '@' && dialect !== 'postgres' && variableEnd(sql, at) > at) {
      at = push('variable', at, variableEnd(sql, at));
    } else if (WORD_CHAR.test(ch)) {
      let end = at + 1;
      while (WORD_CHAR.test(sql.charAt(end))) end += 1;
      at = push('word', at, end);
    } else {
      at = push('symbol', at, ch === ':' && next === '=' ? at + 2 : at + 1);
    }
  }
  return { ok: true, tokens };
}

function startsLineComment(sql: string, at: number, dialect: SqlDialect): boolean {
  const ch = sql.charAt(at);
  if (dialect === 'mysql' && ch === '#') return true;
  if (ch !== '-' || sql.charAt(at + 1) !== '-') return false;
  // MySQL: `--` starts a comment when whitespace follows (control characters are refused above).
  return dialect === 'sqlite' || SPACE.has(sql.charAt(at + 2));
}

/**
 * Both servers end a line comment at '\n' only, so the guard does too: were it to end one at '\r',
 * a quote later on that line would open a string for the guard that the server never sees, and the
 * next lines would hide from the checks inside it.
 */
function lineEnd(sql: string, at: number): number {
  const end = sql.indexOf('\n', at);
  return end < 0 ? sql.length : end;
}

/** MySQL runs the text of `/*! … *\/` (MariaDB also `/*M! … *\/`) and reads `/*+ … *\/` as optimizer hints. */
function executableComment(sql: string, at: number): SqlProblem | undefined {
  const opening = sql.slice(at, at + 4);
  if (opening.startsWith('/*!')) return { reason: 'executable comment /*! … */' };
  if (/^\/\*m!/i.test(opening)) return { reason: 'executable comment /*M! … */' };
  if (opening.startsWith('/*+')) return { reason: 'optimizer hint /*+ … */' };
  return undefined;
}

/**
 * The offset just past a quoted string or name. MySQL strings honour backslash escapes unless the server runs
 * with NO_BACKSLASH_ESCAPES (or ANSI_QUOTES, for "…"); a backslash before the closing quote is the one case where
 * the two readings end the string at different places, so it is refused rather than guessed.
 */
function quotedEnd(sql: string, start: number, dialect: SqlDialect): number | SqlProblem {
  const open = sql.charAt(start);
  const close = open === '[' ? ']' : open;
  const escapes = dialect === 'mysql' && open !== '`';
  let at = start + 1;
  while (at < sql.length) {
    const ch = sql.charAt(at);
    if (escapes && ch === '\\') {
      if (sql.charAt(at + 1) === close) {
        return {
          reason: `backslash-escaped quote \\${close} inside a string (its meaning depends on the server's sql_mode)`,
          hint: `Write a quote inside a string by doubling it, e.g. ${close}it${close}${close}s${close}.`,
        };
      }
      at += 2;
    } else if (ch !== close) {
      at += 1;
    } else if (close !== ']' && sql.charAt(at + 1) === close) {
      at += 2;
    } else {
      return at + 1;
    }
  }
  return { reason: `unterminated ${open}…${close} at character ${start + 1}`, hint: CLOSE_HINT };
}

/**
 * The name a word or quoted-name token stands for: `` `a``b` `` -> a`b, `"x"` -> x, `[x]` -> x. A single-quoted
 * token is a string, not a name: `undefined`, as for symbols and variables.
 */
export function nameOf(token: SqlToken | undefined): string | undefined {
  if (!token) return undefined;
  if (token.kind === 'word') return token.text;
  if (token.kind !== 'quoted') return undefined;
  const open = token.text.charAt(0);
  if (open === '[') return token.text.slice(1, -1);
  if (open !== '`' && open !== '"') return undefined;
  return token.text.slice(1, -1).replaceAll(open + open, open);
}

/**
 * The tokens as one line of SQL without comments, for a parser that should see exactly the code the server sees:
 * tokens that touched stay touching (`<=`, `1.5`), a comment or space becomes one space, and two minus signs never
 * touch, because MySQL reads `--1` as minus minus one where another reader might see a comment.
 */
export function joinTokens(tokens: readonly SqlToken[]): string {
  let text = '';
  let previous: SqlToken | undefined;
  for (const token of tokens) {
    if (previous && (token.start > previous.end || (previous.text === '-' && token.text.startsWith('-')))) text += ' ';
    text += token.text;
    previous = token;
  }
  return text;
}

/** `@name` or `@@name` (MySQL variables, SQLite parameters); returns `at` when no name follows. */
function variableEnd(sql: string, at: number): number {
  const nameStart = sql.charAt(at + 1) === '@' ? at + 2 : at + 1;
  let end = nameStart;
  while (WORD_CHAR.test(sql.charAt(end))) end += 1;
  return end > nameStart ? end : at;
}
