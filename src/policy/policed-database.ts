/**
 * A `Database` as one person may see it under the access policy, wrapped around the real connector: listings,
 * descriptions and the catalogue show only granted tables and columns (masked ones marked, without samples); every statement is
 * checked (`statement-access.ts`) and the tables it reads that are masked for the person are replaced by views
 * (`masked-view.ts`), so rows are masked in the database, before they reach the host, the kernel or the model.
 */

import { QueryFailedError, SqlRejectedError } from '../base/errors.js';
import { type SqlToken, tokenizeSql } from '../db/guard/sql-tokens.js';
import type { TableRead } from '../ports/access.js';
import type {
  Database,
  ExtractOptions,
  MaskedColumn,
  Provenance,
  QueryOptions,
  StatementAccess,
  TableDescription,
  TableInfo,
} from '../ports/database.js';
import type { Kernel } from '../ports/sandbox.js';
import type { DatabaseAccess } from './access.js';
import { withoutValues } from './error-values.js';
import { quoteName, withMaskedViews } from './masked-view.js';
import { nestedWithProblem } from './nested-with.js';
import { grantedDescription, policedCatalogue } from './policed-catalogue.js';
import type { ProfileDatabases } from './profile-databases.js';
import { checkStatement, type StatementRead } from './statement-access.js';

export interface PolicedDatabaseOptions {
  access: DatabaseAccess;
  /** This database's pseudonym key (`pseudonymKey`). */
  pseudonymKey: string;
  /** Told after each statement that ran, with the tables it read. */
  onRead?: (reads: TableRead[]) => Promise<void>;
  /**
   * The logins `tally policy apply` made for this database: given, every statement runs as the login of this
   * person's profile, against its views; absent (SQLite, or no apply), tally's rewrite masks alone.
   */
  views?: ProfileDatabases;
}

/** A statement ready to run: what to send where, what it reads, and what holds the policy for it. */
interface Prepared {
  statement: string;
  read: StatementRead;
  target: Database;
  enforcedBy: string;
}

/** What the wrapper reads of the real database once and keeps: its tables, their descriptions, its own schema. */
interface InnerCatalog {
  allTables(): Promise<TableInfo[]>;
  describeAll(table: string): Promise<TableDescription>;
  ownSchema(): Promise<string>;
}

/** One wrapper's state, shared by the steps that police a statement. */
interface Policing {
  inner: Database;
  options: PolicedDatabaseOptions;
  catalog: InnerCatalog;
  /** The person's profile login, asked for once (`views` given), else undefined. */
  profileLogin(): ReturnType<ProfileDatabases['forAccess']> | undefined;
}

const REWRITE = (inner: Database) => ({ target: inner, enforcedBy: 'rewrite' });

export function policedDatabase(inner: Database, options: PolicedDatabaseOptions): Database {
  let loggingIn: ReturnType<ProfileDatabases['forAccess']> | undefined;
  const policing: Policing = {
    inner,
    options,
    catalog: innerCatalog(inner),
    profileLogin: () => {
      loggingIn ??= options.views?.forAccess(options.access);
      return loggingIn;
    },
  };
  return {
    get name() {
      return inner.name;
    },
    get dialect() {
      return inner.dialect;
    },
    async listTables() {
      return (await policing.catalog.allTables()).filter((table) => options.access.tableGrant(table.name));
    },
    describeTable: (table: string) => describeGranted(table, policing),
    ...(inner.catalogue ? { catalogue: policedCatalogue(inner.catalogue.bind(inner), options.access) } : {}),
    async query(sql: string, queryOptions?: QueryOptions) {
      const prepared = await prepare(sql, policing);
      try {
        const result = await prepared.target.query(prepared.statement, queryOptions);
        return { ...result, access: await reported(prepared, policing) };
      } catch (error) {
        throw scrubbed(error, sql, prepared.read, policing);
      }
    },
    async extract(sql: string, kernel: Kernel, name: string, extractOptions: ExtractOptions = {}): Promise<Provenance> {
      const prepared = await prepare(sql, policing);
      const masked = maskedColumns(prepared.read);
      try {
        const provenance = await prepared.target.extract(prepared.statement, kernel, name, {
          ...extractOptions,
          described: { sql, masked, enforcedBy: prepared.enforcedBy },
        });
        return { ...provenance, access: await reported(prepared, policing) };
      } catch (error) {
        throw scrubbed(error, sql, prepared.read, policing);
      }
    },
    close: () => inner.close(),
  };
}

/** The real database's tables, descriptions and schema, each read once, when first asked for. */
function innerCatalog(inner: Database): InnerCatalog {
  let tableList: Promise<TableInfo[]> | undefined;
  let schema: Promise<string> | undefined;
  const described = new Map<string, Promise<TableDescription>>();
  return {
    allTables() {
      tableList ??= inner.listTables();
      return tableList;
    },
    describeAll(table: string) {
      let description = described.get(table);
      if (!description) {
        description = inner.describeTable(table);
        described.set(table, description);
      }
      return description;
    },
    ownSchema() {
      schema ??=
        inner.dialect === 'sqlite'
          ? Promise.resolve('main')
          : inner
              .query(inner.dialect === 'mysql' ? 'SELECT DATABASE()' : 'SELECT current_schema()', { maxRows: 1 })
              .then((result) => String(result.rows[0]?.[0] ?? ''));
      return schema;
    },
  };
}

/** A granted table's description: denied columns left out, masked ones marked and without samples. */
async function describeGranted(table: string, { inner, options, catalog }: Policing): Promise<TableDescription> {
  const { access } = options;
  const granted = (await catalog.allTables()).filter((info) => access.tableGrant(info.name));
  if (!granted.some((info) => info.name === table)) {
    const names = granted.map((info) => info.name).join(', ') || 'none';
    throw new QueryFailedError(inner.name, `no table named '${table}' that you may read. Tables: ${names}`);
  }
  return grantedDescription(await catalog.describeAll(table), access);
}

/** Where and how `sql` runs: as the person's login when the database enforces the policy, else rewritten. */
async function prepare(sql: string, policing: Policing): Promise<Prepared> {
  const { inner } = policing;
  const tokenized = tokenizeSql(sql, inner.dialect);
  const login = await policing.profileLogin();
  const as = login ? { target: login.database, enforcedBy: `database login ${login.login}` } : undefined;
  // SQL the tokenizer refuses goes to the connector as it is, whose guard refuses it with its own message.
  if (!tokenized.ok) return { statement: sql, read: { tables: [], others: [] }, ...(as ?? REWRITE(inner)) };
  const tokens = tokenized.tokens.filter((token) => token.text !== ';');
  const read = await grantedRead(tokens, policing);
  // The login reads only its views, whatever the statement nests: nothing to rewrite.
  if (as) return { statement: sql, read, ...as };
  return { statement: await withMasks(sql, tokens, read, policing), read, ...REWRITE(inner) };
}

/** What the statement reads, refused when the policy does not grant it or leaves a table no column. */
async function grantedRead(tokens: SqlToken[], { inner, options, catalog }: Policing): Promise<StatementRead> {
  const verdict = await checkStatement({
    tokens,
    dialect: inner.dialect,
    schema: await catalog.ownSchema(),
    tables: (await catalog.allTables()).map((table) => table.name),
    columnsOf: async (table, other) => {
      if (other === undefined) return (await catalog.describeAll(table)).columns.map((column) => column.name);
      const name = `${quoteName(inner.dialect, other)}.${quoteName(inner.dialect, table)}`;
      return (await inner.query(`SELECT * FROM ${name} LIMIT 0`, { maxRows: 1 })).columns.map((column) => column.name);
    },
    access: options.access,
  });
  if ('refused' in verdict) throw new SqlRejectedError('not granted by the access policy', verdict.refused);
  const empty = verdict.tables.find(({ columns }) => columns.every((column) => column.access === 'denied'));
  if (empty) {
    throw new SqlRejectedError(
      'no column granted',
      `No column of ${empty.table} is granted to you by the access policy.`,
    );
  }
  return verdict;
}

/** `sql` with each table it reads that is masked for the person replaced by its masked view. */
async function withMasks(sql: string, tokens: SqlToken[], read: StatementRead, policing: Policing): Promise<string> {
  const { inner, options, catalog } = policing;
  const masked = read.tables.filter(({ columns }) => columns.some((column) => column.access !== 'raw'));
  if (masked.length === 0) return sql;
  const problem = nestedWithProblem(
    tokens,
    inner.dialect,
    masked.map(({ table }) => table),
  );
  if (problem) throw new SqlRejectedError('masking cannot hold', problem);
  return withMaskedViews({
    sql,
    tokens,
    dialect: inner.dialect,
    schema: await catalog.ownSchema(),
    key: options.pseudonymKey,
    tables: masked,
  });
}

/** The tables and columns a statement that ran read: told to `onRead`, and returned as the result's `access`. */
async function reported({ read, enforcedBy }: Prepared, { inner, options }: Policing): Promise<StatementAccess> {
  const reads: TableRead[] = [
    ...read.tables.map(({ table, columns }) => ({
      database: inner.name,
      table,
      columns: Object.fromEntries(columns.map((column) => [column.name, column.access])),
    })),
    ...read.others.map((table) => ({ database: inner.name, table, columns: {} })),
  ];
  if (reads.length > 0) await options.onRead?.(reads);
  return {
    tables: reads.map((entry) => entry.table),
    columns: read.tables.flatMap(({ table, columns }) =>
      columns.filter((column) => column.access !== 'denied').map((column) => `${table}.${column.name}`),
    ),
    masked: read.tables.flatMap(({ table, columns }) =>
      columns
        .filter((column) => column.access === 'hash' || column.access === 'redact')
        .map((column) => `${table}.${column.name} (${column.access})`),
    ),
    enforcedBy,
  };
}

/** The masked columns a statement reads, as an extract's provenance names them. */
function maskedColumns(read: StatementRead): MaskedColumn[] {
  return read.tables.flatMap(({ table, columns }) =>
    columns
      .filter((column) => column.access === 'hash' || column.access === 'redact')
      .map((column) => ({ column: `${table}.${column.name}`, treatment: column.access as 'hash' | 'redact' })),
  );
}

/**
 * The key must never reach a message or a log: a server error may quote the statement it ran, and the driver's
 * error (kept as `cause`) holds the whole statement. Nor may a value of a masked or partly granted table, which an
 * error can quote (`error-values.ts`). Errors of such a statement lose their cause.
 */
function scrubbed(error: unknown, sql: string, read: StatementRead, { inner, options }: Policing): unknown {
  const key = options.pseudonymKey;
  const partial = read.tables.some(({ columns }) => columns.some((column) => column.access !== 'raw'));
  if (!(error instanceof Error) || !partial) return error;
  const clean = (text: string) => withoutValues(text.replaceAll(key, '…'), sql, inner.dialect);
  // A refusal is tally's own words about the statement, no value of the database's: only the key goes.
  if (error instanceof SqlRejectedError) {
    return new SqlRejectedError(error.reason.replaceAll(key, '…'), error.message.replaceAll(key, '…'));
  }
  // The server's words follow our own prefix, whose quoted database name is not a value.
  if (error instanceof QueryFailedError) {
    return new QueryFailedError(inner.name, clean(error.message.replace(/^The query failed on '[^']*': /, '')));
  }
  const message = clean(error.message);
  error.message = message;
  delete (error as { cause?: unknown }).cause;
  return error;
}
