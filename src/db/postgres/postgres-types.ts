/**
 * Which pandas representation a PostgreSQL column gets, from the type OID of its row description, and
 * the value parsers for previews: the driver's text for everything a JSON preview would otherwise
 * change (dates stay as written, not as a JavaScript Date in the host's time zone).
 */
import type { ColumnEncoding } from '../column-kind.js';

/** Built-in type OIDs (src/include/catalog/pg_type.dat). */
export const PG = {
  BOOL: 16,
  BYTEA: 17,
  INT8: 20,
  INT2: 21,
  INT4: 23,
  OID: 26,
  JSON: 114,
  FLOAT4: 700,
  FLOAT8: 701,
  MONEY: 790,
  DATE: 1082,
  TIME: 1083,
  TIMESTAMP: 1114,
  TIMESTAMPTZ: 1184,
  INTERVAL: 1186,
  NUMERIC: 1700,
  UUID: 2950,
  JSONB: 3802,
} as const;

export interface PostgresEncoding extends ColumnEncoding {
  /** How the COPY text of a value becomes the bytes the column builder reads (`postgres-copy-columns.ts`). */
  copy?: 'boolean' | 'timestamptz' | 'bytea' | 'interval';
}

export function postgresColumnEncoding(oid: number): PostgresEncoding {
  switch (oid) {
    case PG.INT2:
    case PG.INT4:
    case PG.OID:
      return { kind: 'integer' };
    case PG.INT8:
      return { kind: 'integer', wide: true };
    case PG.FLOAT4:
    case PG.FLOAT8:
      return { kind: 'float' };
    case PG.NUMERIC:
      return { kind: 'decimal' };
    case PG.BOOL:
      return { kind: 'boolean', copy: 'boolean' };
    case PG.DATE:
      return { kind: 'date' };
    case PG.TIMESTAMP:
      return { kind: 'datetime' };
    case PG.TIMESTAMPTZ:
      return { kind: 'datetime', copy: 'timestamptz' };
    case PG.TIME:
      return { kind: 'time' };
    case PG.INTERVAL:
      return { kind: 'time', copy: 'interval' };
    case PG.BYTEA:
      return { kind: 'binary', copy: 'bytea' };
    case PG.JSON:
    case PG.JSONB:
      return { kind: 'json' };
    default:
      // text, varchar, char, uuid, money, enums, arrays, ranges, network and geometric types: their text.
      return { kind: 'text' };
  }
}

/** The kind for a column as the catalog names it (`pg_type.typname`), for describe_table. */
export function postgresTypeNameEncoding(typeName: string): PostgresEncoding {
  const oid = TYPE_OIDS.get(typeName.toLowerCase());
  return oid === undefined ? { kind: 'text' } : postgresColumnEncoding(oid);
}

const TYPE_OIDS = new Map<string, number>([
  ['bool', PG.BOOL],
  ['bytea', PG.BYTEA],
  ['int8', PG.INT8],
  ['int2', PG.INT2],
  ['int4', PG.INT4],
  ['oid', PG.OID],
  ['json', PG.JSON],
  ['float4', PG.FLOAT4],
  ['float8', PG.FLOAT8],
  ['date', PG.DATE],
  ['time', PG.TIME],
  ['timestamp', PG.TIMESTAMP],
  ['timestamptz', PG.TIMESTAMPTZ],
  ['interval', PG.INTERVAL],
  ['numeric', PG.NUMERIC],
  ['uuid', PG.UUID],
  ['jsonb', PG.JSONB],
]);

/** Names of the common built-in types, for previews (an extraction asks the server's `format_type`). */
const TYPE_NAMES = new Map<number, string>([
  [PG.BOOL, 'boolean'],
  [PG.BYTEA, 'bytea'],
  [PG.INT8, 'bigint'],
  [PG.INT2, 'smallint'],
  [PG.INT4, 'integer'],
  [PG.OID, 'oid'],
  [PG.JSON, 'json'],
  [PG.FLOAT4, 'real'],
  [PG.FLOAT8, 'double precision'],
  [PG.MONEY, 'money'],
  [PG.DATE, 'date'],
  [PG.TIME, 'time without time zone'],
  [PG.TIMESTAMP, 'timestamp without time zone'],
  [PG.TIMESTAMPTZ, 'timestamp with time zone'],
  [PG.INTERVAL, 'interval'],
  [PG.NUMERIC, 'numeric'],
  [PG.UUID, 'uuid'],
  [PG.JSONB, 'jsonb'],
  [25, 'text'],
  [1043, 'character varying'],
  [1042, 'character'],
  [19, 'name'],
  [1000, 'boolean[]'],
  [1005, 'smallint[]'],
  [1007, 'integer[]'],
  [1009, 'text[]'],
  [1015, 'character varying[]'],
  [1016, 'bigint[]'],
  [1022, 'double precision[]'],
  [1231, 'numeric[]'],
]);

export function postgresTypeName(oid: number): string {
  return TYPE_NAMES.get(oid) ?? `oid ${oid}`;
}

const asText = (value: string) => value;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Parsers for previews and metadata (rows as arrays): numbers as numbers where exact, BIGINT beyond 2^53 and
 * NUMERIC as their text (like decimals from MySQL), booleans as booleans, bytea as bytes, the rest as text.
 */
export function previewParser(oid: number): (value: string) => unknown {
  switch (oid) {
    case PG.INT2:
    case PG.INT4:
    case PG.OID:
    case PG.FLOAT4:
    case PG.FLOAT8:
      return Number;
    case PG.INT8:
      return (value) => {
        const big = BigInt(value);
        return big <= SAFE && big >= -SAFE ? Number(big) : value;
      };
    case PG.BOOL:
      return (value) => value === 't';
    case PG.BYTEA:
      return (value) => Buffer.from(value.slice(2), 'hex');
    default:
      return asText;
  }
}
