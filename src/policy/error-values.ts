/**
 * A server's error message without the values it quotes. `EXTRACTVALUE(1, CONCAT(0x7e, (SELECT email …)))` makes
 * MariaDB answer `XPATH syntax error: '~<an e-mail>'`, and a failed cast quotes the value it could not read on every
 * server: for a statement that reads a masked or partly granted table, the message is a channel around the mask.
 *
 * What stays is what the model needs to repair its SQL: the message's own words, the names it quotes when they are
 * names the statement wrote (`Unknown column 'emali' in 'field list'`), and the whole of a syntax error, which the
 * server raises before it reads any row. Everything else between quotes becomes `'…'`; where values could hold the
 * quote character, everything from the first doubtful quote to the last one goes.
 */
import { nameOf, type SqlDialect, tokenizeSql } from '../db/guard/sql-tokens.js';

/** Where MySQL and MariaDB say an error was (`Unknown column 'x' in 'where clause'`). */
const MYSQL_PLACES = new Set([
  'field list',
  'where clause',
  'order clause',
  'group statement',
  'having clause',
  'on clause',
  'from clause',
  'IN/ALL/ANY subquery',
  'SELECT',
  'UNION',
]);

const SYNTAX_ERROR = /^(You have an error in your SQL syntax|syntax error at or near|near ".*": syntax error)/;

export function withoutValues(message: string, sql: string, dialect: SqlDialect): string {
  if (SYNTAX_ERROR.test(message)) return message;
  const tokenized = tokenizeSql(sql, dialect);
  const names = new Set((tokenized.ok ? tokenized.tokens : []).flatMap((token) => nameOf(token)?.toLowerCase() ?? []));
  const kept = (quoted: string) =>
    MYSQL_PLACES.has(quoted) ||
    (quoted !== '' && quoted.split('.').every((part) => names.has(part.replace(/^[`"]|[`"]$/g, '').toLowerCase())));
  let text = '';
  let at = 0;
  while (at < message.length) {
    const open = message.slice(at).search(/['"]/);
    if (open < 0) return text + message.slice(at);
    const start = at + open;
    const quote = message.charAt(start);
    const close = message.indexOf(quote, start + 1);
    if (close < 0) return `${text}${message.slice(at, start)}${quote}…${quote}`;
    const quoted = message.slice(start + 1, close);
    if (kept(quoted)) {
      text += message.slice(at, close + 1);
      at = close + 1;
      continue;
    }
    const last = message.lastIndexOf(quote);
    return `${text}${message.slice(at, start)}${quote}…${quote}${withoutQuotes(message.slice(last + 1))}`;
  }
  return text;
}

/** The tail after the last quote holds no quote of that kind; one of the other kind is cut here too. */
function withoutQuotes(tail: string): string {
  const other = tail.search(/['"]/);
  return other < 0 ? tail : `${tail.slice(0, other)}…`;
}
