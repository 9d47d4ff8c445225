/**
 * The synthetic warehouse of the schema benchmark: 25 business domains of 5 entities each, every entity as a base
 * table (with foreign keys to its domain's other entities) and 7 derived ones (daily, weekly, monthly, snapshot,
 * staging, archive, audit), 10 to 40 columns each, less the last entity's eight (energy_carbon_emissions): 992
 * tables, which with telco's 8 make 1,000. Deterministic, so the questions in `schema-questions.ts` can name the
 * tables they need. Also the CREATE TABLE per dialect. The domains and entities are in `schema-domains.ts`.
 */
import type { ColumnKind, TableDescription } from '../src/ports/database.js';
import { DOMAINS } from './schema-domains.js';

export type WarehouseType = 'id' | 'int' | 'decimal' | 'text' | 'date' | 'datetime' | 'bool';

export interface WarehouseColumn {
  name: string;
  type: WarehouseType;
  references?: { table: string; column: string };
}

export interface WarehouseTable {
  name: string;
  comment: string;
  columns: WarehouseColumn[];
}

const VARIANTS = ['', '_daily', '_weekly', '_monthly', '_snapshot', '_staging', '_archive', '_audit'] as const;
const VARIANT_NOTES: Record<(typeof VARIANTS)[number], string> = {
  '': '',
  _daily: 'Daily aggregate of',
  _weekly: 'Weekly aggregate of',
  _monthly: 'Monthly aggregate of',
  _snapshot: 'Nightly snapshot of',
  _staging: 'ETL staging copy of',
  _archive: 'Archived rows (older than two years) of',
  _audit: 'Change log of',
};

/** Columns that warehouses carry everywhere: they fill each table up to its size and say nothing of its subject. */
const FILLERS: Array<[string, WarehouseType]> = [
  ['created_at', 'datetime'],
  ['updated_at', 'datetime'],
  ['status', 'text'],
  ['region', 'text'],
  ['country_code', 'text'],
  ['currency', 'text'],
  ['source_system', 'text'],
  ['etl_batch_id', 'int'],
  ['load_ts', 'datetime'],
  ['is_deleted', 'bool'],
  ['notes', 'text'],
  ['external_ref', 'text'],
  ['owner_id', 'int'],
  ['channel_code', 'text'],
  ['category_code', 'text'],
  ['amount', 'decimal'],
  ['quantity_total', 'int'],
  ['tax_amount', 'decimal'],
  ['start_date', 'date'],
  ['end_date', 'date'],
  ['score', 'decimal'],
  ['version', 'int'],
  ['checksum', 'text'],
  ['batch_date', 'date'],
  ['record_hash', 'text'],
  ['valid_from', 'date'],
  ['valid_to', 'date'],
  ['row_number', 'int'],
  ['partition_key', 'text'],
  ['ingested_by', 'text'],
  ['flag_a', 'bool'],
  ['flag_b', 'bool'],
  ['metric_1', 'decimal'],
  ['metric_2', 'decimal'],
  ['metric_3', 'decimal'],
  ['label', 'text'],
  ['comment_text', 'text'],
];

/** How many of the 1,000 tables are telco's. */
export const TELCO_TABLES = 8;

/** The 992 synthetic tables, in a stable order. */
export function warehouseTables(): WarehouseTable[] {
  const tables: WarehouseTable[] = [];
  let index = 0;
  for (const [domain, entities] of Object.entries(DOMAINS)) {
    for (const [entity, spec] of Object.entries(entities)) {
      for (const variant of VARIANTS) {
        const name = `${domain}_${entity}${variant}`;
        const own = spec.split(' ').map((word) => ownColumn(domain, word, variant === ''));
        const size = 10 + ((index * 7919) % 31);
        const fillers = FILLERS.filter((filler) => !own.some((column) => column.name === filler[0]))
          .slice(0, Math.max(0, size - own.length - 1))
          .map(([column, type]) => ({ name: column, type }));
        const base = `${domain} ${entity.replaceAll('_', ' ')}`;
        tables.push({
          name,
          comment: variant === '' ? `The ${base}, one row each` : `${VARIANT_NOTES[variant]} ${domain}_${entity}`,
          columns: [{ name: 'id', type: 'id' }, ...own, ...fillers],
        });
        index += 1;
      }
    }
  }
  return tables.slice(0, tables.length - TELCO_TABLES);
}

function ownColumn(domain: string, word: string, withKeys: boolean): WarehouseColumn {
  const [name = '', target] = word.split('>');
  if (target) {
    return { name, type: 'int', ...(withKeys ? { references: { table: `${domain}_${target}`, column: 'id' } } : {}) };
  }
  const [column = '', type = 'text'] = name.split(':');
  return { name: column, type: type as WarehouseType };
}

const KINDS: Record<WarehouseType, ColumnKind> = {
  id: 'integer',
  int: 'integer',
  decimal: 'decimal',
  text: 'text',
  date: 'date',
  datetime: 'datetime',
  bool: 'boolean',
};

/** The table as a catalogue would describe it (for the unit tests, which need no server). */
export function describedWarehouseTable(table: WarehouseTable): TableDescription {
  return {
    name: table.name,
    rows: 0,
    rowsExact: false,
    comment: table.comment,
    columns: table.columns.map((column) => ({
      name: column.name,
      type: column.type,
      kind: KINDS[column.type],
      nullable: column.type !== 'id',
      ...(column.type === 'id' ? { key: 'primary' as const } : {}),
      ...(column.references ? { references: column.references } : {}),
    })),
  };
}

const SQL_TYPES: Record<'mysql' | 'postgres' | 'sqlite', Record<WarehouseType, string>> = {
  mysql: {
    id: 'INT PRIMARY KEY',
    int: 'INT',
    decimal: 'DECIMAL(12,2)',
    text: 'VARCHAR(80)',
    date: 'DATE',
    datetime: 'DATETIME',
    bool: 'TINYINT(1)',
  },
  postgres: {
    id: 'integer PRIMARY KEY',
    int: 'integer',
    decimal: 'numeric(12,2)',
    text: 'varchar(80)',
    date: 'date',
    datetime: 'timestamp',
    bool: 'boolean',
  },
  sqlite: {
    id: 'INTEGER PRIMARY KEY',
    int: 'INTEGER',
    decimal: 'NUMERIC',
    text: 'TEXT',
    date: 'DATE',
    datetime: 'DATETIME',
    bool: 'BOOLEAN',
  },
};

/** CREATE TABLE with the table's comment (MySQL inline, PostgreSQL as COMMENT ON, SQLite as `--`). */
export function createWarehouseTable(table: WarehouseTable, dialect: 'mysql' | 'postgres' | 'sqlite'): string[] {
  const types = SQL_TYPES[dialect];
  const quote = (name: string) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const columns = table.columns.map((column) => {
    const reference = column.references
      ? ` REFERENCES ${quote(column.references.table)}(${column.references.column})`
      : '';
    return `${quote(column.name)} ${types[column.type]}${reference}`;
  });
  const literal = `'${table.comment.replaceAll("'", "''")}'`;
  if (dialect === 'mysql') return [`CREATE TABLE ${quote(table.name)} (${columns.join(', ')}) COMMENT ${literal}`];
  if (dialect === 'postgres') {
    return [
      `CREATE TABLE ${quote(table.name)} (${columns.join(', ')})`,
      `COMMENT ON TABLE ${quote(table.name)} IS ${literal}`,
    ];
  }
  return [`CREATE TABLE ${quote(table.name)} ( -- ${table.comment}\n  ${columns.join(',\n  ')}\n)`];
}
