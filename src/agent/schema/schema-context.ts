/**
 * The schema a turn's prompts carry, in two parts. `overview` names every database and its tables and depends only
 * on the catalogues, so it is the same text turn after turn (it goes into the system prompt, which the provider's
 * prompt cache reuses). `relevant` describes the tables this question needs, found in the catalogue by
 * `table-search.ts` and `pick-tables.ts`, within a budget, on a schema of eight tables as on one of a thousand: every
 * request of the turn repeats it, so a table the question does not need costs on each of them (the overview names it,
 * `describe_table` reads it). A table with the same columns as one described before it is said to be so, not
 * described again (the train and test halves of a split). Catalogues come from `Database.catalogue` (kept by the
 * connector, filtered by the access policy), else from `listTables` and `describeTable`.
 */
import type { Database, TableDescription } from '../../ports/database.js';
import type { KnowledgePiece } from '../../ports/knowledge.js';
import { catalogueTables } from './catalogue-tables.js';
import { pickTables } from './pick-tables.js';
import { databaseOverview, describeTableLine, saidKey, sameColumnsLine } from './schema-text.js';
import { type CatalogueTable, scoreTables } from './table-search.js';

/** Characters of table names in the overview, shared by the databases. */
export const OVERVIEW_CHARS = 3000;
/** Characters of table descriptions in `relevant`. */
export const RELEVANT_CHARS = 6000;

export interface SchemaContext {
  /** Per database: name, dialect, table count and names; the same for the same catalogues. */
  overview: string;
  /** The tables this question needs, described. */
  relevant: string;
}

interface DatabaseTables {
  database: Database;
  tables: TableDescription[];
}

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
  const picked = pickTables(all, scoreTables(all, question, known), known);
  if (picked.length === 0) {
    return 'No table name, column or comment matches this request: find tables with list_tables and describe_table.';
  }
  const rest = all.length - picked.length;
  return [
    'tables for it (column kind, key, -> foreign key):',
    ...describe(picked, RELEVANT_CHARS, describedIn(known)),
    ...(rest > 0 ? [`(${rest} more table${rest === 1 ? '' : 's'}: list_tables, describe_table)`] : []),
  ].join('\n');
}

const withoutComment = ({ comment: _, ...table }: TableDescription): TableDescription => table;

const columnKey = (database: string, table: string, column: string) =>
  `${database}\u0000${table}\u0000${column}`.toLowerCase();

/**
 * The tables and columns the knowledge sent with this request describes (a table piece: the table on its head line,
 * then a line per column, `    Column (also: …): what it holds`; a table's key has no column): their comments are not
 * said again in the table's line.
 */
function describedIn(known: readonly KnowledgePiece[]): Set<string> {
  const described = new Set<string>();
  for (const piece of known.filter((candidate) => candidate.kind === 'table')) {
    described.add(columnKey(piece.database, piece.title, ''));
    for (const line of piece.text.split('\n').slice(1)) {
      const column = /^\s+([^\s:(]+)/.exec(line)?.[1];
      if (column) described.add(columnKey(piece.database, piece.title, column));
    }
  }
  return described;
}

/**
 * Grouped by database in the order given; each table with comments if it fits, else without, else named only; a
 * table whose columns are those of one already described, by that one's name.
 */
function describe(tables: readonly CatalogueTable[], budget: number, inKnowledge: ReadonlySet<string>): string[] {
  const databases = [...new Set(tables.map((entry) => entry.database))];
  const many = databases.length > 1;
  const lines: string[] = [];
  const unsaid: string[] = [];
  let left = budget;
  for (const database of databases) {
    if (many) lines.push(`database ${database}:`);
    const described = new Map<string, string>();
    // Column comments said once: the key every table shares is explained at its first table only.
    let said = new Set<string>();
    for (const { table } of tables.filter((entry) => entry.database === database)) {
      const columns = columnsKey(table);
      const same = described.get(columns);
      const saying = new Set(said);
      for (const column of table.columns) {
        if (inKnowledge.has(columnKey(database, table.name, column.name))) saying.add(saidKey(column));
      }
      const shown = inKnowledge.has(columnKey(database, table.name, '')) ? withoutComment(table) : table;
      const detailed = same ? sameColumnsLine(shown, same) : describeTableLine(shown, true, saying);
      const fits = detailed.length + 1 <= left || same;
      if (fits) said = saying;
      const line = fits ? detailed : describeTableLine(shown, false);
      if (line.length + 1 > left) {
        unsaid.push(many ? `${database}.${table.name}` : table.name);
        continue;
      }
      lines.push(line);
      left -= line.length + 1;
      if (!same) described.set(columns, table.name);
    }
  }
  if (unsaid.length > 0) lines.push(`- also: ${unsaid.join(', ')} (describe_table for columns)`);
  return lines;
}

const keys = new WeakMap<TableDescription, string>();

/** What makes two tables' descriptions the same: their columns with kinds, keys, references and comments. */
function columnsKey(table: TableDescription): string {
  let key = keys.get(table);
  if (key === undefined) {
    key = JSON.stringify(
      table.columns.map(({ name, kind, key, references, comment }) => [name, kind, key, references, comment]),
    );
    keys.set(table, key);
  }
  return key;
}
