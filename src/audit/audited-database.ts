/**
 * A `Database` whose every statement and extraction leaves an audit record: the SQL as written, the
 * tables (and, under the access policy, the columns and masks) it read, rows and bytes, or the
 * refusal and the rule behind it. Listings, catalogues and descriptions say what was shown: the tables listed,
 * once per message (a wrapper lives for one message), and each table's columns the first time they
 * are described in it (a catalogue: every table's, once).
 */

import { SqlRejectedError } from '../base/errors.js';
import { statementTables } from '../db/guard/statement-tables.js';
import type { AuditEvent, AuditTrail } from '../ports/audit.js';
import type {
  CatalogueOptions,
  Database,
  ExtractOptions,
  Provenance,
  QueryOptions,
  StatementAccess,
} from '../ports/database.js';
import type { Kernel } from '../ports/sandbox.js';

export function auditedDatabase(inner: Database, audit: Pick<AuditTrail, 'record'>): Database {
  const base = (kind: 'query' | 'extract', sql: string) => ({ kind, database: inner.name, sql });
  let listed: Promise<void> | undefined;
  const readCatalogue = inner.catalogue?.bind(inner);
  let catalogued: Promise<void> | undefined;
  const recordListed = (tables: readonly { name: string }[]) => {
    listed ??= audit.record({
      kind: 'list',
      database: inner.name,
      tables: tables.map((table) => table.name),
      decision: 'allowed',
    });
    return listed;
  };
  const described = new Map<string, Promise<void>>();

  async function refused(kind: 'query' | 'extract', sql: string, error: unknown): Promise<never> {
    if (error instanceof SqlRejectedError) {
      const byPolicy = /access policy|granted/.test(error.reason);
      await audit.record({
        ...base(kind, sql),
        ...tablesOf(sql, inner.dialect),
        decision: 'refused',
        reason: byPolicy ? 'access policy' : 'sql guard',
        rule: error.message,
      });
    }
    throw error;
  }

  return {
    get name() {
      return inner.name;
    },
    get dialect() {
      return inner.dialect;
    },
    async listTables() {
      const tables = await inner.listTables();
      await recordListed(tables);
      return tables;
    },
    // The catalogue is a listing and a description of every table it holds (what a prompt may show of it; which
    // tables a turn's prompt describes is the agent's to choose): recorded once per message, as one of each.
    ...(readCatalogue
      ? {
          async catalogue(options?: CatalogueOptions) {
            const catalogue = await readCatalogue(options);
            await recordListed(catalogue.tables);
            catalogued ??= audit.record({
              kind: 'describe',
              database: inner.name,
              tables: catalogue.tables.map((table) => table.name),
              columns: catalogue.tables.flatMap((table) =>
                table.columns.map((column) => `${table.name}.${column.name}`),
              ),
              decision: 'allowed',
            });
            await catalogued;
            return catalogue;
          },
        }
      : {}),
    async describeTable(table: string) {
      const description = await inner.describeTable(table).catch(async (error: unknown) => {
        await audit.record({
          kind: 'describe',
          database: inner.name,
          tables: [table],
          decision: 'refused',
          // Under a policy a table the person may not read is described as not there, "that you may read".
          reason: /that you may read/.test((error as Error).message) ? 'access policy' : 'no such table',
          rule: (error as Error).message,
        });
        throw error;
      });
      if (!described.has(table)) {
        described.set(
          table,
          audit.record({
            kind: 'describe',
            database: inner.name,
            tables: [table],
            columns: description.columns.map((column) => `${table}.${column.name}`),
            decision: 'allowed',
          }),
        );
      }
      await described.get(table);
      return description;
    },
    async query(sql: string, options?: QueryOptions) {
      const { access, ...result } = await inner.query(sql, options).catch((error) => refused('query', sql, error));
      await audit.record({
        ...base('query', sql),
        ...readOf(sql, access, inner.dialect),
        rows: result.rows.length,
        bytes: Buffer.byteLength(JSON.stringify(result.rows)),
        decision: 'allowed',
      });
      return result;
    },
    async extract(sql: string, kernel: Kernel, name: string, options?: ExtractOptions): Promise<Provenance> {
      const { access, ...provenance } = await inner
        .extract(sql, kernel, name, options)
        .catch((error) => refused('extract', sql, error));
      await audit.record({
        ...base('extract', sql),
        ...readOf(sql, access, inner.dialect),
        rows: provenance.rows,
        bytes: provenance.bytes,
        ...(options?.replay ? { replay: true as const } : {}),
        decision: 'allowed',
      });
      return provenance;
    },
    close: () => inner.close(),
  };
}

/** What the policy saw the statement read; without a policy, the tables a parse of it names. */
function readOf(
  sql: string,
  access: StatementAccess | undefined,
  dialect: Database['dialect'],
): Pick<AuditEvent, 'tables' | 'columns' | 'masked' | 'enforcedBy'> {
  if (!access) return tablesOf(sql, dialect);
  return {
    tables: access.tables,
    columns: access.columns,
    ...(access.masked.length > 0 ? { masked: access.masked } : {}),
    enforcedBy: access.enforcedBy,
  };
}

function tablesOf(sql: string, dialect: Database['dialect']): Pick<AuditEvent, 'tables'> {
  const tables = statementTables(sql, dialect);
  if (!tables) return {};
  return { tables: tables.map(({ schema, table }) => (schema ? `${schema}.${table}` : table)) };
}
