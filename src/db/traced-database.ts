/**
 * A `Database` whose every statement and extraction is a span, by OpenTelemetry's database conventions: the
 * engine (`db.system.name`), the database as configured (`db.namespace`), the statement as written
 * (`db.query.text`, the same SQL the audit trail records) and how many rows came back. The rows themselves
 * never go into it. A refused or failing statement ends its span failed with the error's code.
 */
import type { Database, ExtractOptions, Provenance, QueryOptions } from '../ports/database.js';
import type { Kernel } from '../ports/sandbox.js';
import type { SpanAttributes, Tracing } from '../ports/tracing.js';

/** The conventions' names of the engines (MariaDB speaks the MySQL dialect and is reported as `mysql`). */
const SYSTEMS: Record<Database['dialect'], string> = { mysql: 'mysql', postgres: 'postgresql', sqlite: 'sqlite' };

export function tracedDatabase(inner: Database, tracing: Tracing): Database {
  const statement = (kind: 'query' | 'extract', sql: string): { name: string; attributes: SpanAttributes } => {
    const operation = /^\s*\(*\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase();
    return {
      name: operation ? `${operation} ${inner.name}` : inner.name,
      attributes: {
        'db.system.name': SYSTEMS[inner.dialect],
        'db.namespace': inner.name,
        'db.query.text': sql,
        'db.operation.name': operation,
        'tally.sql.kind': kind,
      },
    };
  };
  return {
    get name() {
      return inner.name;
    },
    get dialect() {
      return inner.dialect;
    },
    listTables: () => inner.listTables(),
    describeTable: (table: string) => inner.describeTable(table),
    ...(inner.catalogue ? { catalogue: inner.catalogue.bind(inner) } : {}),
    query(sql: string, options?: QueryOptions) {
      const { name, attributes } = statement('query', sql);
      return tracing.span(
        name,
        attributes,
        async (span) => {
          const result = await inner.query(sql, options);
          span.set({
            'db.response.returned_rows': result.rows.length,
            'tally.sql.truncated': result.truncated,
            'tally.sql.elapsed_ms': result.elapsedMs,
          });
          return result;
        },
        { kind: 'client' },
      );
    },
    extract(sql: string, kernel: Kernel, frame: string, options?: ExtractOptions): Promise<Provenance> {
      const { name, attributes } = statement('extract', sql);
      return tracing.span(
        name,
        attributes,
        async (span) => {
          const provenance = await inner.extract(sql, kernel, frame, options);
          span.set({
            'db.response.returned_rows': provenance.rows,
            'tally.sql.bytes': provenance.bytes,
            'tally.sql.elapsed_ms': provenance.elapsedMs,
          });
          return provenance;
        },
        { kind: 'client' },
      );
    },
    close: () => inner.close(),
  };
}
