/**
 * The telco dataset's public surface, for the demo and tests. The command line is load.ts.
 */
export {
  type BuildTelcoTablesOptions,
  buildTelcoTables,
  type TelcoRowCounts,
  type TelcoTables,
} from './build-telco-tables.js';
export { createReadonlyRole, type ReadonlyRole, type ReadonlyRoleOptions } from './create-readonly-role.js';
export { createReadonlyUser, type ReadonlyUser, type ReadonlyUserOptions } from './create-readonly-user.js';
export { CUSTOMER_ID_PATTERN } from './customer-id.js';
export { formatTelcoReport } from './format-report.js';
export { DEFAULT_ROWS, DEFAULT_SEED, type GenerateCustomersOptions, generateCustomers } from './generate-customers.js';
export { BLANKABLE_PAYMENT_COLUMNS, type InjectedProblems, type TelcoDamageOptions } from './inject-damage.js';
export { type LoadIntoMysqlOptions, loadIntoMysql } from './load-into-mysql.js';
export { type LoadIntoPostgresOptions, loadIntoPostgres } from './load-into-postgres.js';
export { loadIntoSqlite } from './load-into-sqlite.js';
export { type LoadTelcoOptions, loadTelco, type TelcoLoadReport } from './load-telco.js';
export { parseLoadArguments } from './parse-load-arguments.js';
export { parseCsv, parseTelcoCsv, readTelcoCsv } from './parse-telco-csv.js';
export { TELCO_COLUMNS, type TelcoCustomer } from './telco-customer.js';
export { TelcoError, type TelcoErrorCode } from './telco-error.js';
export { TELCO_TABLES, type TelcoTableName, type TelcoTableSpec } from './telco-tables.js';
export { parseTelcoTarget, redactUrl, type TelcoTarget } from './telco-target.js';
