/**
 * The catalogue of one PostgreSQL schema from pg_catalog in three queries (relations, columns with their keys,
 * foreign keys) whatever the number of tables, and its fingerprint: DDL rewrites the catalogue rows it touches, so
 * the transaction ids (xmin) of the schema's pg_class, pg_attribute and pg_description rows move with any table,
 * column or comment change, while VACUUM and ANALYZE update pg_class in place and leave them be.
 */
import type { ColumnInfo, TableDescription } from '../../ports/database.js';
import { postgresTypeNameEncoding } from './postgres-types.js';

/** Runs one trusted statement and returns its rows as arrays. */
export type CatalogueRows = (sql: string) => Promise<unknown[][]>;

const RELATIONS = `c.relkind IN ('r', 'p', 'v', 'm', 'f')`;

function inSchema(schema: string): string {
  return `c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ${literal(schema)}) AND ${RELATIONS}`;
}

export async function readPostgresCatalogue(rows: CatalogueRows, schema: string): Promise<TableDescription[]> {
  const where = inSchema(schema);
  const [tables, columns, foreignKeys] = await Promise.all([
    rows(
      // reltuples is -1 until the table is first vacuumed or analysed: the statistics' live tuples then.
      `SELECT c.relname, CASE WHEN c.reltuples >= 0 THEN c.reltuples::float8 ELSE coalesce(s.n_live_tup, 0)::float8 END,
              obj_description(c.oid, 'pg_class')
         FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_stat_all_tables s ON s.relid = c.oid
        WHERE ${where} ORDER BY c.relname`,
    ),
    rows(
      `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), t.typname, NOT a.attnotnull,
              col_description(a.attrelid, a.attnum), k.key
         FROM pg_catalog.pg_attribute a
         JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
         JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
         LEFT JOIN (SELECT i.indrelid, i.indkey[0] AS attnum,
                           CASE WHEN bool_or(i.indisprimary) THEN 'primary' WHEN bool_or(i.indisunique) THEN 'unique' ELSE 'index' END AS key
                      FROM pg_catalog.pg_index i GROUP BY i.indrelid, i.indkey[0]) k
           ON k.indrelid = a.attrelid AND k.attnum = a.attnum
        WHERE ${where} AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY c.relname, a.attnum`,
    ),
    rows(
      `SELECT c.relname, a.attname, r.relname, ra.attname
         FROM pg_catalog.pg_constraint f
         JOIN pg_catalog.pg_class c ON c.oid = f.conrelid
         JOIN pg_catalog.pg_class r ON r.oid = f.confrelid AND r.relnamespace = c.relnamespace
         JOIN pg_catalog.pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = f.conkey[1]
         JOIN pg_catalog.pg_attribute ra ON ra.attrelid = f.confrelid AND ra.attnum = f.confkey[1]
        WHERE f.contype = 'f' AND ${where}`,
    ),
  ]);
  const references = new Map<string, { table: string; column: string }>();
  for (const [table, column, target, targetColumn] of foreignKeys) {
    references.set(`${table}\u0000${column}`, { table: String(target), column: String(targetColumn) });
  }
  const columnsOf = new Map<string, ColumnInfo[]>();
  for (const [table, name, type, typeName, nullable, comment, key] of columns) {
    const reference = references.get(`${table}\u0000${name}`);
    const column: ColumnInfo = {
      name: String(name),
      type: String(type),
      kind: postgresTypeNameEncoding(String(typeName)).kind,
      nullable: Boolean(nullable),
      ...(key ? { key: key as NonNullable<ColumnInfo['key']> } : {}),
      ...(comment ? { comment: String(comment) } : {}),
      ...(reference ? { references: reference } : {}),
    };
    const list = columnsOf.get(String(table));
    if (list) list.push(column);
    else columnsOf.set(String(table), [column]);
  }
  return tables.map(([name, estimate, comment]) => ({
    name: String(name),
    rows: Math.max(0, Math.round(Number(estimate ?? 0))),
    rowsExact: false,
    ...(comment ? { comment: String(comment) } : {}),
    columns: columnsOf.get(String(name)) ?? [],
  }));
}

/** The schema's relations, and the sums of the transaction ids that last wrote their catalogue rows. */
export async function postgresCatalogueFingerprint(rows: CatalogueRows, schema: string): Promise<string> {
  const where = inSchema(schema);
  const [[value] = []] =
    await rows(`SELECT concat_ws(':', count(*), sum(c.xmin::text::bigint), sum(c.relfilenode::bigint),
    (SELECT sum(a.xmin::text::bigint) FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
      WHERE ${where} AND a.attnum > 0),
    (SELECT count(*) || '.' || coalesce(sum(d.xmin::text::bigint), 0) FROM pg_catalog.pg_description d
       JOIN pg_catalog.pg_class c ON c.oid = d.objoid AND d.classoid = 'pg_catalog.pg_class'::regclass WHERE ${where}))
  FROM pg_catalog.pg_class c WHERE ${where}`);
  return String(value ?? '');
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
