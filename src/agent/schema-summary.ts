/** The databases' tables and columns as compact text for the stage prompts (all of them, cut at a size). */
import type { Database } from '../ports/database.js';
import { catalogueTables } from './schema/catalogue-tables.js';

const MAX_CHARS = 6000;

export async function summariseSchema(databases: readonly Database[]): Promise<string> {
  const lines: string[] = [];
  for (const database of databases) {
    lines.push(`database ${database.name} (${database.dialect}):`);
    for (const table of await catalogueTables(database)) {
      const columns = table.columns.map((column) => `${column.name} ${column.kind}`).join(', ');
      lines.push(`- ${table.name} (${table.rowsExact ? '' : '~'}${table.rows} rows): ${columns}`);
    }
  }
  const text = lines.join('\n');
  return text.length <= MAX_CHARS ? text : `${text.slice(0, MAX_CHARS)}\n… (more tables: use list_tables)`;
}
