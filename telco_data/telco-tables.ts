/**
 * The layout of telco_db, as in the analysts' course databases: four train tables keyed by
 * customerID and four `_new` tables with the same columns for the held-out customers. Both loaders
 * and the data dictionary are built from this one description.
 */
import { SERVICE_COLUMNS, type TelcoColumnKind, type TelcoColumnName, telcoColumn } from './telco-customer.js';

/** A cell as stored: text, a number, or NULL (only the tenure of fake service rows). */
export type TelcoCell = string | number | null;
/** One row keyed by column name. */
export type TelcoRow = Record<string, TelcoCell>;

export type TelcoTableGroup = 'user_demographics' | 'user_services' | 'user_payments' | 'user_churn';
export type TelcoTableName = TelcoTableGroup | `${TelcoTableGroup}_new`;

export interface TelcoTableColumn {
  name: TelcoColumnName;
  kind: TelcoColumnKind;
  /** NULL allowed: only tenure, for the fake rows injected into user_services. */
  nullable: boolean;
  /** Short text for the MySQL and PostgreSQL column comment. */
  comment: string;
}

export interface TelcoTableSpec {
  name: TelcoTableName;
  group: TelcoTableGroup;
  /** `train` tables carry the injected damage; `test` (`_new`) tables are clean. */
  part: 'train' | 'test';
  comment: string;
  columns: readonly TelcoTableColumn[];
}

const GROUP_COLUMNS: Record<TelcoTableGroup, readonly TelcoColumnName[]> = {
  user_demographics: ['customerID', 'gender', 'SeniorCitizen', 'Partner', 'Dependents'],
  // tenure lives with the services, as in the course layout.
  user_services: ['customerID', 'tenure', ...SERVICE_COLUMNS],
  user_payments: ['customerID', 'Contract', 'PaperlessBilling', 'PaymentMethod', 'MonthlyCharges', 'TotalCharges'],
  user_churn: ['customerID', 'Churn'],
};

const GROUP_COMMENTS: Record<TelcoTableGroup, string> = {
  user_demographics: 'Who the customer is, one row per customer',
  user_services: 'Tenure and subscribed services, one row per customer',
  user_payments: 'Contract, billing and charges, one row per customer',
  user_churn: 'Whether the customer churned, one row per customer',
};

export const TELCO_TABLE_GROUPS = Object.keys(GROUP_COLUMNS) as TelcoTableGroup[];

function spec(group: TelcoTableGroup, part: 'train' | 'test'): TelcoTableSpec {
  return {
    name: part === 'train' ? group : `${group}_new`,
    group,
    part,
    comment:
      part === 'train'
        ? `${GROUP_COMMENTS[group]} (train, 80%; has known data quality problems)`
        : `${GROUP_COMMENTS[group]} (test, 20%; clean)`,
    columns: GROUP_COLUMNS[group].map((name) => {
      const column = telcoColumn(name);
      return { name, kind: column.kind, nullable: name === 'tenure', comment: column.meaning };
    }),
  };
}

/** The eight tables: the four train tables, then their `_new` counterparts. */
export const TELCO_TABLES: readonly TelcoTableSpec[] = [
  ...TELCO_TABLE_GROUPS.map((group) => spec(group, 'train')),
  ...TELCO_TABLE_GROUPS.map((group) => spec(group, 'test')),
];

/** The spec of one table. */
export function telcoTable(name: TelcoTableName): TelcoTableSpec {
  const table = TELCO_TABLES.find((candidate) => candidate.name === name);
  if (!table) throw new Error(`unknown telco table ${name}`);
  return table;
}

/** MySQL/MariaDB column type for each kind (TotalCharges stays text, as in the IBM file). */
export const MYSQL_TYPES: Record<TelcoColumnKind, string> = {
  id: 'VARCHAR(20)',
  flag: 'TINYINT',
  integer: 'INT',
  money: 'DECIMAL(8,2)',
  'money-text': 'VARCHAR(20)',
  category: 'VARCHAR(40)',
};

/**
 * PostgreSQL column type for each kind, chosen so that an extraction gives the same pandas dtypes as
 * MySQL's: smallint and integer are integers like TINYINT and INT, numeric is a decimal like DECIMAL.
 */
export const POSTGRES_TYPES: Record<TelcoColumnKind, string> = {
  id: 'varchar(20)',
  flag: 'smallint',
  integer: 'integer',
  money: 'numeric(8,2)',
  'money-text': 'varchar(20)',
  category: 'varchar(40)',
};

/** SQLite column type for each kind. */
export const SQLITE_TYPES: Record<TelcoColumnKind, string> = {
  id: 'TEXT',
  flag: 'INTEGER',
  integer: 'INTEGER',
  money: 'REAL',
  'money-text': 'TEXT',
  category: 'TEXT',
};
