/**
 * A `Database` as one person may see it under the access policy, wrapped around the real connector: listings and
 * descriptions show only granted tables and columns (masked ones marked, without samples); every statement is
 * checked (`statement-access.ts`) and the tables it reads that are masked for the person are replaced by views
 * (`masked-view.ts`), so rows are masked in the database, before they reach the host, the kernel or the model.
 */

import { QueryFailedError, SqlRejectedError } from '../base/errors.js';
import { tokenizeSql } from '../db/guard/sql-tokens.js';
import type { TableRead } from '../ports/access.js';
import type {
  Database,
  ExtractOptions,
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

const MASK_NOTES = {
  hash: 'pseudonymised by the access policy: a stable keyed hash, so joins and group-bys work',
  redact: 'redacted by the access policy: always NULL',
} as const;

const REWRITE = (inner: Database) => ({ target: inner, enforcedBy: 'rewrite' });

export function policedDatabase(inner: Database, options: PolicedDatabaseOptions): Database {
  const { access, pseudonymKey: key } = options;
  let tableList: Promise<TableInfo[]> | undefined;
  let schema: Promise<string> | undefined;
  const described = new Map<string, Promise<TableDescription>>();
  let loggingIn: ReturnType<ProfileDatabases['forAccess']> | undefined;
  const allTables = () => {
    tableList ??= inner.listTables();
    return tableList;
  };
  const describeAll = (table: string) => {
    let description = described.get(table);
    if (!description) {
      description = inner.describeTable(table);
      described.set(table, description);
    }
    return description;
  };
  const ownSchema = () => {
    schema ??=
      inner.dialect === 'sqlite'
        ? Promise.resolve('main')
        : inner
            .query(inner.dialect === 'mysql' ? 'SELECT DATABASE()' : 'SELECT current_schema()', { maxRows: 1 })
            .then((result) => String(result.rows[0]?.[0] ?? ''));
    return schema;
  };

  /** Where and how `sql` runs: as the person's login when the database enforces the policy, else rewritten. */
  async function prepare(sql: string): Promise<Prepared> {
    const tokenized = tokenizeSql(sql, inner.dialect);
    loggingIn ??= options.views?.forAccess(access);
    const login = await loggingIn;
    const as = login ? { target: login.database, enforcedBy: `database login ${login.login}` } : undefined;
    // SQL the tokenizer refuses goes to the connector as it is, whose guard refuses it with its own message.
    if (!tokenized.ok) return { statement: sql, read: { tables: [], others: [] }, ...(as ?? REWRITE(inner)) };
    const tokens = tokenized.tokens.filter((token) => token.text !== ';');
    const verdict = await checkStatement({
      tokens,
      dialect: inner.dialect,
      schema: await ownSchema(),
      tables: (await allTables()).map((table) => table.name),
      columnsOf: async (table, other) => {
        if (other === undefined) return (await describeAll(table)).columns.map((column) => column.name);
        const name = `${quoteName(inner.dialect, other)}.${quoteName(inner.dialect, table)}`;
        return (await inner.query(`SELECT * FROM ${name} LIMIT 0`, { maxRows: 1 })).columns.map(
          (column) => column.name,
        );
      },
      access,
    });
    if ('refused' in verdict) throw new SqlRejectedError('not granted by the access policy', verdict.refused);
    const empty = verdict.tables.find(({ columns }) => columns.every((column) => column.access === 'denied'));
    if (empty) {
      throw new SqlRejectedError(
        'no column granted',
        `No column of ${empty.table} is granted to you by the access policy.`,
      );
    }
    // The login reads only its views, whatever the statement nests: nothing to rewrite.
    if (as) return { statement: sql, read: verdict, ...as };
    const masked = verdict.tables.filter(({ columns }) => columns.some((column) => column.access !== 'raw'));
    if (masked.length === 0) return { statement: sql, read: verdict, ...REWRITE(inner) };
    const problem = nestedWithProblem(
      tokens,
      inner.dialect,
      masked.map(({ table }) => table),
    );
    if (problem) throw new SqlRejectedError('masking cannot hold', problem);
    const statement = withMaskedViews({
      sql,
      tokens,
      dialect: inner.dialect,
      schema: await ownSchema(),
      key,
      tables: masked,
    });
    return { statement, read: verdict, ...REWRITE(inner) };
  }

  async function reported({ read, enforcedBy }: Prepared): Promise<StatementAccess> {
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

  /**
   * The key must never reach a message or a log: a server error may quote the statement it ran, and the driver's
   * error (kept as `cause`) holds the whole statement. Nor may a value of a masked or partly granted table, which an
   * error can quote (`error-values.ts`). Errors of such a statement lose their cause.
   */
  function scrubbed(error: unknown, sql: string, read: StatementRead): unknown {
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

  return {
    get name() {
      return inner.name;
    },
    get dialect() {
      return inner.dialect;
    },
    async listTables() {
      return (await allTables()).filter((table) => access.tableGrant(table.name));
    },
    async describeTable(table: string) {
      const granted = (await allTables()).filter((info) => access.tableGrant(info.name));
      if (!granted.some((info) => info.name === table)) {
        const names = granted.map((info) => info.name).join(', ') || 'none';
        throw new QueryFailedError(inner.name, `no table named '${table}' that you may read. Tables: ${names}`);
      }
      const description = await describeAll(table);
      const columns = description.columns.flatMap((column) => {
        const { access: how } = access.column(table, column.name);
        if (how === 'denied') return [];
        if (how === 'raw') return [column];
        const { samples: _samples, ...rest } = column;
        return [
          { ...rest, type: how === 'hash' ? 'char(16)' : column.type, kind: 'text' as const, comment: MASK_NOTES[how] },
        ];
      });
      return { ...description, columns };
    },
    async query(sql: string, queryOptions?: QueryOptions) {
      const prepared = await prepare(sql);
      try {
        const result = await prepared.target.query(prepared.statement, queryOptions);
        return { ...result, access: await reported(prepared) };
      } catch (error) {
        throw scrubbed(error, sql, prepared.read);
      }
    },
    async extract(sql: string, kernel: Kernel, name: string, extractOptions: ExtractOptions = {}): Promise<Provenance> {
      const prepared = await prepare(sql);
      const masked = prepared.read.tables.flatMap(({ table, columns }) =>
        columns
          .filter((column) => column.access === 'hash' || column.access === 'redact')
          .map((column) => ({ column: `${table}.${column.name}`, treatment: column.access as 'hash' | 'redact' })),
      );
      try {
        const provenance = await prepared.target.extract(prepared.statement, kernel, name, {
          ...extractOptions,
          described: { sql, masked, enforcedBy: prepared.enforcedBy },
        });
        return { ...provenance, access: await reported(prepared) };
      } catch (error) {
        throw scrubbed(error, sql, prepared.read);
      }
    },
    close: () => inner.close(),
  };
}
