/**
 * The catalogue of a SQLite file from sqlite_master and the pragma table functions: a few queries whatever the
 * number of tables (row counts in one compound SELECT per 200 tables, since SQLite keeps no estimate), and its
 * fingerprint, the schema version SQLite bumps on every schema change. SQLite has no comments: the `-- text` after
 * a column in CREATE TABLE (as the telco loader writes them) stands for one.
 */
import type { ColumnInfo, TableDescription } from '../../ports/database.js';
import { sqliteColumnEncoding } from '../column-kind.js';

/** Runs one trusted statement and returns its rows as arrays. */
export type CatalogueRows = (sql: string) => Promise<unknown[][]>;

const TABLES = `sqlite_master m WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite_%'`;
const COUNTS_PER_STATEMENT = 200;

export async function sqliteCatalogueFingerprint(rows: CatalogueRows): Promise<string> {
  const [[version] = []] = await rows('SELECT schema_version FROM pragma_schema_version');
  return String(version ?? '');
}

export async function readSqliteCatalogue(rows: CatalogueRows): Promise<TableDescription[]> {
  const [tables, columns, unique, foreignKeys] = await Promise.all([
    rows(`SELECT m.name, m.sql FROM ${TABLES} ORDER BY m.name`),
    rows(`SELECT m.name, p.name, p.type, p."notnull", p.pk FROM ${TABLES.replace(' WHERE', ', pragma_table_info(m.name) p WHERE')}
          ORDER BY m.name, p.cid`),
    rows(`SELECT m.name, ii.name FROM ${TABLES.replace(' WHERE', ', pragma_index_list(m.name) il, pragma_index_info(il.name) ii WHERE')}
            AND il."unique" = 1`),
    rows(
      `SELECT m.name, f."from", f."table", f."to" FROM ${TABLES.replace(' WHERE', ', pragma_foreign_key_list(m.name) f WHERE')}`,
    ),
  ]);
  const names = tables.map(([name]) => String(name));
  const counts = await countRows(rows, names);
  const uniqueColumns = new Set(unique.map(([table, column]) => `${table}\u0000${column}`));
  const references = new Map<string, { table: string; column: string }>();
  for (const [table, column, target, targetColumn] of foreignKeys) {
    if (targetColumn !== null) {
      references.set(`${table}\u0000${column}`, { table: String(target), column: String(targetColumn) });
    }
  }
  const comments = new Map(tables.map(([name, sql]) => [String(name), sqlComments(String(sql ?? ''))]));
  const columnsOf = new Map<string, ColumnInfo[]>();
  for (const [table, name, type, notNull, primary] of columns) {
    const id = `${table}\u0000${name}`;
    const reference = references.get(id);
    const comment = comments.get(String(table))?.columns.get(String(name));
    const key = Number(primary) > 0 ? 'primary' : uniqueColumns.has(id) ? 'unique' : undefined;
    const column: ColumnInfo = {
      name: String(name),
      type: String(type ?? '') || '(none)',
      kind: sqliteColumnEncoding(String(type ?? '')).kind,
      nullable: Number(notNull) === 0 && Number(primary) === 0,
      ...(key ? { key } : {}),
      ...(comment ? { comment } : {}),
      ...(reference ? { references: reference } : {}),
    };
    const list = columnsOf.get(String(table));
    if (list) list.push(column);
    else columnsOf.set(String(table), [column]);
  }
  return names.map((name) => {
    const comment = comments.get(name)?.table;
    return {
      name,
      rows: counts.get(name) ?? 0,
      rowsExact: counts.has(name),
      ...(comment ? { comment } : {}),
      columns: columnsOf.get(name) ?? [],
    };
  });
}

/** Every table's row count, a compound SELECT per 200 tables (SQLite allows 500 terms). */
async function countRows(rows: CatalogueRows, names: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let start = 0; start < names.length; start += COUNTS_PER_STATEMENT) {
    const chunk = names.slice(start, start + COUNTS_PER_STATEMENT);
    const sql = chunk.map((name) => `SELECT ${literal(name)}, COUNT(*) FROM ${quote(name)}`).join(' UNION ALL ');
    try {
      for (const [name, count] of await rows(sql)) counts.set(String(name), Number(count));
    } catch {
      // a broken view: these tables go without a count
    }
  }
  return counts;
}

/** `-- text` after the opening line (the table's) and after each column's definition. */
export function sqlComments(sql: string): { table?: string; columns: Map<string, string> } {
  const columns = new Map<string, string>();
  let table: string | undefined;
  for (const [index, line] of sql.split('\n').entries()) {
    const comment = /--\s*(.*?)\s*$/.exec(line)?.[1];
    if (!comment) continue;
    if (index === 0) {
      table = comment;
      continue;
    }
    const name = /^\s*(?:"((?:[^"]|"")+)"|`([^`]+)`|\[([^\]]+)\]|([\p{L}_][\p{L}\p{N}_$]*))/u.exec(line);
    const column = name?.[1]?.replaceAll('""', '"') ?? name?.[2] ?? name?.[3] ?? name?.[4];
    if (column) columns.set(column, comment);
  }
  return table === undefined ? { columns } : { table, columns };
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
