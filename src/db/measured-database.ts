/**
 * A `Database` that reports the rows of every extraction to the metrics port. Everything else is
 * forwarded untouched; query timings are already in each result (`elapsedMs`).
 */
import type { Database, ExtractOptions, Provenance, QueryOptions } from '../ports/database.js';
import type { Metrics } from '../ports/metrics.js';
import type { Kernel } from '../ports/sandbox.js';

export function measuredDatabase(db: Database, metrics: Metrics): Database {
  return {
    get name() {
      return db.name;
    },
    get dialect() {
      return db.dialect;
    },
    listTables: () => db.listTables(),
    describeTable: (table: string) => db.describeTable(table),
    ...(db.catalogue ? { catalogue: db.catalogue.bind(db) } : {}),
    query: (sql: string, options?: QueryOptions) => db.query(sql, options),
    async extract(sql: string, kernel: Kernel, name: string, options?: ExtractOptions): Promise<Provenance> {
      const provenance = await db.extract(sql, kernel, name, options);
      metrics.rowsExtracted(provenance.rows);
      return provenance;
    },
    close: () => db.close(),
  };
}
