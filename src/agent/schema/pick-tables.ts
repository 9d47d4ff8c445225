/**
 * The tables a turn describes: the best-scored ones (within a share of the best score), then the tables they join
 * to, by foreign key either way or by a join the knowledge store names, best-scored first. A table a matched one
 * references is taken even when the question says nothing of it (a dimension); one that references a matched
 * table only when the question says something of it too.
 */
import type { KnowledgePiece } from '../../ports/knowledge.js';
import type { CatalogueTable, ScoredTable } from './table-search.js';

export interface PickLimits {
  /** Tables matched on their own score at most. Default 8. */
  matched?: number;
  /** Tables added because they join a matched one, at most. Default 4. */
  joined?: number;
  /** Share of the best score a matched table needs. Default 0.3. */
  floor?: number;
}

const key = (database: string, table: string) => `${database}.${table}`;

/** `scored` holds the tables that scored above zero, best first; `lookup` finds any table by `database.table`. */
export function pickTables(
  scored: readonly ScoredTable[],
  known: readonly KnowledgePiece[],
  lookup: (key: string) => CatalogueTable | undefined,
  limits: PickLimits = {},
): ScoredTable[] {
  const { matched: maxMatched = 8, joined: maxJoined = 4, floor = 0.3 } = limits;
  const best = scored[0]?.score ?? 0;
  if (best <= 0) return [];
  const matched = scored.filter((entry) => entry.score > 0 && entry.score >= best * floor).slice(0, maxMatched);
  const picked = new Set(matched.map((entry) => key(entry.database, entry.table.name)));
  const byKey = new Map(scored.map((entry) => [key(entry.database, entry.table.name), entry]));

  const partners = new Set<string>();
  for (const entry of matched) {
    for (const column of entry.table.columns) {
      if (column.references) partners.add(key(entry.database, column.references.table));
    }
  }
  for (const entry of scored) {
    if (entry.score <= 0) break;
    const referencesPicked = entry.table.columns.some(
      (column) => column.references && picked.has(key(entry.database, column.references.table)),
    );
    if (referencesPicked) partners.add(key(entry.database, entry.table.name));
  }
  for (const piece of known) {
    if (piece.kind !== 'join') continue;
    const tables = piece.tables.map((table) => key(piece.database, table));
    if (tables.some((table) => picked.has(table))) for (const table of tables) partners.add(table);
  }
  const joined = [...partners]
    .filter((table) => !picked.has(table))
    .flatMap((table) => {
      const found = byKey.get(table) ?? lookup(table);
      return found ? [{ score: 0, ...found }] : [];
    })
    .sort((a, b) => b.score - a.score || a.table.name.localeCompare(b.table.name))
    .slice(0, maxJoined);
  return [...matched, ...joined];
}
