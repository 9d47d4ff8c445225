/**
 * The schema as prompt text: a database's overview (its tables by name, or by name prefix with counts when they
 * are too many to name, and never anything that depends on the question) and a table's description in two
 * sizes, with its columns' comments (cut short) or without.
 */
import type { ColumnInfo, TableDescription } from '../../ports/database.js';

const COMMENT_CHARS = 60;

/**
 * `- name (~N rows; comment): column kind, …`; `detailed` adds each column's comment, cut short, unless `said` holds
 * it: the same column with the same comment in a table described before (a key shared by every table).
 */
export function describeTableLine(table: TableDescription, detailed: boolean, said?: Set<string>): string {
  const rows = `${table.rowsExact ? '' : '~'}${thousands(table.rows)} rows`;
  const comment = table.comment ? `; ${short(table.comment)}` : '';
  const columns = table.columns.map((column) => describeColumn(column, detailed, said)).join(', ');
  return `- ${table.name} (${rows}${comment}): ${columns}`;
}

/** `- name (~N rows; comment): the columns of other`: a table shaped like one described before it. */
export function sameColumnsLine(table: TableDescription, other: string): string {
  return `${describeTableLine({ ...table, columns: [] }, false).slice(0, -2)}: the columns of ${other}`;
}

/** How `said` knows a column's comment was given. */
export function saidKey(column: ColumnInfo): string {
  return `${column.name}\u0000${column.comment ?? ''}`;
}

function describeColumn(column: ColumnInfo, detailed: boolean, said: Set<string> | undefined): string {
  const key = column.key === 'primary' ? ' key' : '';
  const reference = column.references ? ` -> ${column.references.table}.${column.references.column}` : '';
  const known = saidKey(column);
  const comment = detailed && column.comment && !said?.has(known) ? ` (${short(column.comment)})` : '';
  if (comment) said?.add(known);
  return `${column.name} ${column.kind}${key}${reference}${comment}`;
}

/** `12345` -> `12,345` (what `toLocaleString('en-US')` gives for a whole number, without its cost). */
function thousands(count: number): string {
  return String(Math.round(count)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function short(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > COMMENT_CHARS ? `${line.slice(0, COMMENT_CHARS - 1)}…` : line;
}

/**
 * `database name (dialect), N tables: a, b, c`; past `maxChars`, the names grouped by their first word
 * (`sales_* (40)`), and past that too, cut with how many are left out. The names come sorted.
 */
export function databaseOverview(
  database: { name: string; dialect: string },
  names: readonly string[],
  maxChars: number,
): string {
  const head = `database ${database.name} (${database.dialect}), ${names.length} table${names.length === 1 ? '' : 's'}`;
  if (names.length === 0) return `${head}.`;
  const all = names.join(', ');
  if (all.length <= maxChars) return `${head}: ${all}`;
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const prefix = /^([^_]+)_/.exec(name)?.[1] ?? name;
    const group = groups.get(prefix);
    if (group) group.push(name);
    else groups.set(prefix, [name]);
  }
  const parts: string[] = [];
  let length = 0;
  let shown = 0;
  for (const [prefix, members] of groups) {
    const part = members.length === 1 ? (members[0] as string) : `${prefix}_* (${members.length})`;
    if (length + part.length + 2 > maxChars) break;
    parts.push(part);
    length += part.length + 2;
    shown += members.length;
  }
  const rest = names.length - shown;
  const more = rest > 0 ? `, … ${rest} more` : '';
  return `${head} by name prefix (list_tables names them, describe_table gives columns): ${parts.join(', ')}${more}`;
}
