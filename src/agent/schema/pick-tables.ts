/**
 * The tables a turn describes: the best-scored ones (within a share of the best score), then the tables they join
 * to, by foreign key either way or by a join the knowledge store names, best-scored first. A table a matched one
 * references is taken even when the question says nothing of it (a dimension); one that references a matched
 * table only when the question says something of it too. Who references whom is worked out once per table list.
 */
import type { KnowledgePiece } from '../../ports/knowledge.js';
import { type CatalogueTable, type ScoredTable, type TableScores, tableByKey } from './table-search.js';

export interface PickLimits {
  /** Tables matched on their own score at most. Default 8. */
  matched?: number;
  /** Tables added because they join a matched one, at most. Default 4. */
  joined?: number;
  /** Share of the best score a matched table needs. Default 0.3. */
  floor?: number;
}

const key = (database: string, table: string) => `${database}.${table}`;

export function pickTables(
  tables: readonly CatalogueTable[],
  scores: TableScores,
  known: readonly KnowledgePiece[],
  limits: PickLimits = {},
): ScoredTable[] {
  const { matched: maxMatched = 8, joined: maxJoined = 4, floor = 0.3 } = limits;
  const ranked = scores.best(maxMatched);
  const top = ranked[0]?.score ?? 0;
  if (top <= 0) return [];
  const matched = ranked.filter((entry) => entry.score >= top * floor);
  const picked = new Set(matched.map((entry) => key(entry.database, entry.table.name)));

  const partners = new Set<string>();
  const referencing = referencedBy(tables);
  for (const entry of matched) {
    for (const column of entry.table.columns) {
      if (column.references) partners.add(key(entry.database, column.references.table));
    }
    for (const other of referencing.get(key(entry.database, entry.table.name)) ?? []) {
      if (scores.scoreOf(other) > 0) partners.add(other);
    }
  }
  for (const piece of known) {
    if (piece.kind !== 'join') continue;
    const joinedTables = piece.tables.map((table) => key(piece.database, table));
    if (joinedTables.some((table) => picked.has(table))) for (const table of joinedTables) partners.add(table);
  }
  const joined = [...partners]
    .filter((table) => !picked.has(table))
    .flatMap((table) => {
      const found = tableByKey(tables, table);
      return found ? [{ ...found, score: scores.scoreOf(table) }] : [];
    })
    .sort((a, b) => b.score - a.score || a.table.name.localeCompare(b.table.name))
    .slice(0, maxJoined);
  return [...matched, ...joined];
}

const referenceIndexes = new WeakMap<readonly CatalogueTable[], Map<string, string[]>>();

/** `database.table` -> the tables with a foreign key to it. */
function referencedBy(tables: readonly CatalogueTable[]): Map<string, string[]> {
  let index = referenceIndexes.get(tables);
  if (index) return index;
  index = new Map();
  for (const { database, table } of tables) {
    const from = key(database, table.name);
    for (const target of new Set(table.columns.flatMap((column) => column.references?.table ?? []))) {
      const list = index.get(key(database, target));
      if (list) list.push(from);
      else index.set(key(database, target), [from]);
    }
  }
  referenceIndexes.set(tables, index);
  return index;
}
