/** Which pandas representation a database column gets, from MySQL field metadata or SQLite declared types. */
import type { ColumnKind } from '../ports/database.js';

/** MySQL protocol column types (include/mysql_com.h `enum_field_types`). */
const MYSQL = {
  DECIMAL: 0,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  NULL: 6,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  NEWDATE: 14,
  VARCHAR: 15,
  BIT: 16,
  JSON: 245,
  NEWDECIMAL: 246,
  ENUM: 247,
  SET: 248,
  TINY_BLOB: 249,
  MEDIUM_BLOB: 250,
  LONG_BLOB: 251,
  BLOB: 252,
  VAR_STRING: 253,
  STRING: 254,
  GEOMETRY: 255,
} as const;

const UNSIGNED_FLAG = 32;
const BINARY_CHARSET = 63;

export interface MysqlField {
  columnType?: number;
  flags?: number | string[];
  characterSet?: number;
  columnLength?: number;
}

export interface ColumnEncoding {
  kind: ColumnKind;
  /** BIGINT values may not fit a double exactly. */
  wide?: boolean;
  unsigned?: boolean;
  /** TINYINT(1) and BIT(1): boolean when every value is 0 or 1. */
  booleanLike?: boolean;
}

export function mysqlColumnEncoding(field: MysqlField): ColumnEncoding {
  const type = field.columnType ?? MYSQL.VAR_STRING;
  const unsigned = typeof field.flags === 'number' ? (field.flags & UNSIGNED_FLAG) !== 0 : false;
  const binary = field.characterSet === BINARY_CHARSET;
  switch (type) {
    case MYSQL.TINY:
      return field.columnLength === 1 ? { kind: 'integer', booleanLike: true } : { kind: 'integer' };
    case MYSQL.SHORT:
    case MYSQL.LONG:
    case MYSQL.INT24:
    case MYSQL.YEAR:
      return { kind: 'integer' };
    case MYSQL.LONGLONG:
      return { kind: 'integer', wide: true, unsigned };
    case MYSQL.FLOAT:
    case MYSQL.DOUBLE:
      return { kind: 'float' };
    case MYSQL.DECIMAL:
    case MYSQL.NEWDECIMAL:
      return { kind: 'decimal' };
    case MYSQL.DATE:
    case MYSQL.NEWDATE:
      return { kind: 'date' };
    case MYSQL.DATETIME:
    case MYSQL.TIMESTAMP:
      return { kind: 'datetime' };
    case MYSQL.TIME:
      return { kind: 'time' };
    case MYSQL.BIT:
      return field.columnLength === 1 ? { kind: 'boolean' } : { kind: 'integer', wide: true, unsigned: true };
    case MYSQL.JSON:
      return { kind: 'json' };
    case MYSQL.NULL:
      return { kind: 'dynamic' };
    case MYSQL.GEOMETRY:
      return { kind: 'binary' };
    case MYSQL.TINY_BLOB:
    case MYSQL.MEDIUM_BLOB:
    case MYSQL.LONG_BLOB:
    case MYSQL.BLOB:
    case MYSQL.VAR_STRING:
    case MYSQL.STRING:
    case MYSQL.VARCHAR:
      return binary ? { kind: 'binary' } : { kind: 'text' };
    default:
      return { kind: 'text' };
  }
}

/** SQLite's type affinity rules (datatype3.html §3.1), plus the date names people declare. */
export function sqliteColumnEncoding(declared: string | null): ColumnEncoding {
  const type = (declared ?? '').toUpperCase();
  if (type === '') return { kind: 'dynamic' };
  if (type.includes('INT')) return { kind: 'integer', wide: true };
  if (/CHAR|CLOB|TEXT/.test(type)) return { kind: 'text' };
  if (type.includes('BLOB')) return { kind: 'binary' };
  if (/REAL|FLOA|DOUB/.test(type)) return { kind: 'float' };
  if (type === 'DATE') return { kind: 'date' };
  if (type === 'DATETIME' || type === 'TIMESTAMP') return { kind: 'datetime' };
  if (type === 'BOOLEAN' || type === 'BOOL') return { kind: 'boolean' };
  if (/DECIMAL|NUMERIC/.test(type)) return { kind: 'decimal' };
  return { kind: 'dynamic' };
}

/** The kind for a column as information_schema names it (DATA_TYPE and COLUMN_TYPE). */
export function mysqlTypeNameEncoding(dataType: string, columnType: string): ColumnEncoding {
  const type = dataType.toLowerCase();
  const full = columnType.toLowerCase();
  if (type === 'tinyint' && full.startsWith('tinyint(1)')) return { kind: 'integer', booleanLike: true };
  if (type === 'bigint') return { kind: 'integer', wide: true, unsigned: full.includes('unsigned') };
  if (['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'year'].includes(type)) return { kind: 'integer' };
  if (['float', 'double', 'real'].includes(type)) return { kind: 'float' };
  if (['decimal', 'numeric'].includes(type)) return { kind: 'decimal' };
  if (type === 'date') return { kind: 'date' };
  if (type === 'datetime' || type === 'timestamp') return { kind: 'datetime' };
  if (type === 'time') return { kind: 'time' };
  if (type === 'bit') return full === 'bit(1)' ? { kind: 'boolean' } : { kind: 'integer', wide: true, unsigned: true };
  if (type === 'json') return { kind: 'json' };
  if (/blob|binary|geometry|point|polygon|linestring/.test(type)) return { kind: 'binary' };
  return { kind: 'text' };
}
