/**
 * The schema a turn's prompts carry, in two parts. `overview` names every database and its tables and depends only
 * on the catalogues, so it is the same text turn after turn (it goes into the system prompt, which the provider's
 * prompt cache reuses). `relevant` describes the tables this question needs, found in the catalogue by
 * `table-search.ts` and `pick-tables.ts`, within a budget; when every table fits the budget, it describes them all,
 * so nothing is lost on a small schema. Catalogues come from `Database.catalogue` (kept by the connector, filtered by
 * the access policy), else from `listTables` and `describeTable`.
 */
import type { Database, TableDescription } from '../../ports/database.js';
import type { KnowledgePiece } from '../../ports/knowledge.js';
import { catalogueTables } from './catalogue-tables.js';
import { pickTables } from './pick-tables.js';
import { databaseOverview, describeTableLine } from './schema-text.js';
import { type CatalogueTable, scoreTables, tableByKey } from './table-search.js';

/** Characters of table names in the overview, shared by the databases. */
export const OVERVIEW_CHARS = 3000;
/** Characters of table descriptions in `relevant`. */
export const RELEVANT_CHARS = 6000;
/** Above this many tables, the schema is never described whole. */
const WHOLE_TABLES_AT_MOST = 60;

export interface SchemaContext {
  /** Per database: name, dialect, table count and names; the same for the same catalogues. */
  overview: string;
  /** The tables this question needs, described (or every table, when all fit). */
  relevant: string;
}

interface DatabaseTables {
  database: Database;
  tables: TableDescription[];
}

const plainLength = new WeakMap<TableDescription, number>();

export async function schemaContext(
  databases: readonly Database[],
  question: string,
  known: readonly KnowledgePiece[],
): Promise<SchemaContext> {
  const catalogues = await Promise.all(
    databases.map(async (database) => ({ database, tables: await catalogueTables(database) })),
  );
  const { all, overview } = keptFor(catalogues);
  return { overview, relevant: relevantOf(all, question, known) };
}

interface Kept {
  lists: readonly TableDescription[][];
  names: string;
  all: CatalogueTable[];
  overview: string;
}

/** The last turn's table list and overview, kept while the catalogues are the same objects (kept by connectors). */
let kept: Kept | undefined;

function keptFor(catalogues: readonly DatabaseTables[]): { all: CatalogueTable[]; overview: string } {
  const lists = catalogues.map((entry) => entry.tables);
  const names = catalogues.map(({ database }) => `${database.name}\u0000${database.dialect}`).join('\u0001');
  if (
    kept &&
    kept.names === names &&
    kept.lists.length === lists.length &&
    kept.lists.every((list, i) => list === lists[i])
  ) {
    return kept;
  }
  const all = catalogues.flatMap(({ database, tables }) => tables.map((table) => ({ database: database.name, table })));
  kept = { lists, names, all, overview: overviewOf(catalogues) };
  return kept;
}

function overviewOf(catalogues: readonly DatabaseTables[]): string {
  const share = Math.floor(OVERVIEW_CHARS / Math.max(catalogues.length, 1));
  return catalogues
    .map(({ database, tables }) => databaseOverview(database, tables.map((table) => table.name).sort(), share))
    .join('\n');
}

function relevantOf(all: readonly CatalogueTable[], question: string, known: readonly KnowledgePiece[]): string {
  if (all.length === 0) return '';
  if (fitsWhole(all)) {
    return ['every table (column kind, key, -> foreign key):', ...describe(all, RELEVANT_CHARS)].join('\n');
  }
  const picked = pickTables(scoreTables(all, question, known), known, (key) => tableByKey(all, key));
  if (picked.length === 0) {
    return 'No table name, column or comment matches this request: find tables with list_tables and describe_table.';
  }
  const rest = all.length - picked.length;
  return [
    'tables that may answer this request (column kind, key, -> foreign key):',
    ...describe(picked, RELEVANT_CHARS),
    `(${rest} more table${rest === 1 ? '' : 's'} not described here: list_tables, describe_table)`,
  ].join('\n');
}

function fitsWhole(all: readonly CatalogueTable[]): boolean {
  if (all.length > WHOLE_TABLES_AT_MOST) return false;
  let total = 0;
  for (const { table } of all) {
    let length = plainLength.get(table);
    if (length === undefined) {
      length = describeTableLine(table, false).length + 1;
      plainLength.set(table, length);
    }
    total += length;
  }
  return total <= RELEVANT_CHARS;
}

/** Grouped by database in the order given; each table with comments if it fits, else without, else named only. */
function describe(tables: readonly CatalogueTable[], budget: number): string[] {
  const databases = [...new Set(tables.map((entry) => entry.database))];
  const many = databases.length > 1;
  const lines: string[] = [];
  const unsaid: string[] = [];
  let left = budget;
  for (const database of databases) {
    if (many) lines.push(`database ${database}:`);
    for (const { table } of tables.filter((entry) => entry.database === database)) {
      const detailed = describeTableLine(table, true);
      const line = detailed.length + 1 <= left ? detailed : describeTableLine(table, false);
      if (line.length + 1 > left) {
        unsaid.push(many ? `${database}.${table.name}` : table.name);
        continue;
      }
      lines.push(line);
      left -= line.length + 1;
    }
  }
  if (unsaid.length > 0) lines.push(`- also: ${unsaid.join(', ')} (describe_table for columns)`);
  return lines;
}
