/** A database's tables with their columns, from its kept catalogue when it has one, else table by table. */
import type { Database, TableDescription } from '../../ports/database.js';

/** Sorted by name, columns without samples; what the connector keeps, without waiting for a check that is due. */
export async function catalogueTables(database: Database): Promise<TableDescription[]> {
  if (database.catalogue) return (await database.catalogue({ kept: true })).tables;
  const tables = await database.listTables();
  const described = await Promise.all(
    tables.map(async (info) => {
      const { columns, ...rest } = await database.describeTable(info.name);
      return { ...rest, columns: columns.map(({ samples: _samples, ...column }) => column) };
    }),
  );
  return described.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
