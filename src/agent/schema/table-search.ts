/**
 * Which tables a question is about: BM25 over each table's words (`table-words.ts`), plus a bonus for how much of a
 * table's name the question says and for the tables the turn's knowledge pieces name; a derived table (`x_daily` of
 * `x`) the question does not ask for by its suffix keeps only a share. An inverted index is kept per table list, so
 * a turn touches only the tables that hold one of its words: a few milliseconds on a thousand tables.
 */
import type { TableDescription } from '../../ports/database.js';
import type { KnowledgePiece } from '../../ports/knowledge.js';
import { cachedTokens, identifierText, questionWords, type TableWords, tableWords } from './table-words.js';

export { identifierText } from './table-words.js';

/** A table of one of the turn's databases. */
export interface CatalogueTable {
  database: string;
  table: TableDescription;
}

export interface ScoredTable extends CatalogueTable {
  score: number;
}

const K1 = 1.2;
const B = 0.75;
/** Added for a table whose name's words the question says, scaled by the share said (squared). */
const NAME_BONUS = 2.5;
/** Added for a table the first knowledge piece names, decaying down the list. */
const KNOWLEDGE_BONUS = 4;
const KNOWLEDGE_DECAY = 0.85;
/** A table that is another's name plus words the question does not say (`x_archive` of `x`) keeps this share. */
const VARIANT_SHARE = 0.6;

interface SearchIndex {
  /** word -> [table index, frequency] pairs, flattened. */
  postings: Map<string, number[]>;
  words: TableWords[];
  /** BM25's length normalisation per table. */
  norms: Float64Array;
  /** `database.table` -> table index. */
  keys: Map<string, number>;
}

const indexes = new WeakMap<readonly CatalogueTable[], SearchIndex>();

function indexOf(tables: readonly CatalogueTable[]): SearchIndex {
  let index = indexes.get(tables);
  if (index) return index;
  const all = tables.map(({ table }) => tableWords(table));
  const averageLength = all.reduce((sum, entry) => sum + entry.length, 0) / Math.max(all.length, 1) || 1;
  const postings = new Map<string, number[]>();
  all.forEach((entry, position) => {
    for (const [word, frequency] of entry.counts) {
      const list = postings.get(word);
      if (list) list.push(position, frequency);
      else postings.set(word, [position, frequency]);
    }
  });
  index = {
    postings,
    words: all,
    norms: Float64Array.from(all, (entry) => K1 * (1 - B + (B * entry.length) / averageLength)),
    keys: new Map(tables.map((entry, position) => [`${entry.database}.${entry.table.name}`, position])),
  };
  indexes.set(tables, index);
  return index;
}

/** The table of `database.table` in the list, if there is one (looked up in the kept index). */
export function tableByKey(tables: readonly CatalogueTable[], key: string): CatalogueTable | undefined {
  const position = indexOf(tables).keys.get(key);
  return position === undefined ? undefined : tables[position];
}

/** The tables that score above zero for the question and the turn's knowledge, best first (ties by name). */
export function scoreTables(
  tables: readonly CatalogueTable[],
  question: string,
  known: readonly KnowledgePiece[],
): ScoredTable[] {
  const index = indexOf(tables);
  const said = new Set(questionWords(question));
  const scores = new Float64Array(tables.length);
  const named = new Uint16Array(tables.length);
  const touched = new Set<number>();
  for (const term of said) {
    const postings = index.postings.get(term);
    if (!postings) continue;
    const containing = postings.length / 2;
    const idf = Math.log(1 + (tables.length - containing + 0.5) / (containing + 0.5));
    for (let at = 0; at < postings.length; at += 2) {
      const position = postings[at] as number;
      const frequency = postings[at + 1] as number;
      scores[position] =
        (scores[position] ?? 0) + (idf * frequency * (K1 + 1)) / (frequency + (index.norms[position] ?? 1));
      if (index.words[position]?.name.has(term)) named[position] = (named[position] ?? 0) + 1;
      touched.add(position);
    }
  }
  for (const [key, bonus] of knowledgeBonus(known)) {
    const position = index.keys.get(key);
    if (position === undefined) continue;
    scores[position] = (scores[position] ?? 0) + bonus;
    touched.add(position);
  }
  const scored: ScoredTable[] = [];
  for (const position of touched) {
    const entry = tables[position] as CatalogueTable;
    const size = index.words[position]?.name.size ?? 1;
    let score = (scores[position] as number) + NAME_BONUS * ((named[position] as number) / size) ** 2;
    if (score > 0 && isUnaskedVariant(entry, index.keys, said)) score *= VARIANT_SHARE;
    if (score > 0) scored.push({ ...entry, score });
  }
  return scored.sort(
    (a, b) => b.score - a.score || compare(a.database, b.database) || compare(a.table.name, b.table.name),
  );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `x_daily` when the catalogue has `x` and the question does not say `daily`: a derived table, not the one asked. */
function isUnaskedVariant(
  entry: CatalogueTable,
  keys: ReadonlyMap<string, number>,
  said: ReadonlySet<string>,
): boolean {
  const name = entry.table.name;
  for (let cut = name.lastIndexOf('_'); cut > 0; cut = name.lastIndexOf('_', cut - 1)) {
    if (keys.has(`${entry.database}.${name.slice(0, cut)}`)) {
      return !cachedTokens(identifierText(name.slice(cut + 1))).every((word) => said.has(word));
    }
  }
  return false;
}

/** `database.table` -> the bonus of the best-ranked knowledge piece that names it. */
function knowledgeBonus(known: readonly KnowledgePiece[]): Map<string, number> {
  const bonus = new Map<string, number>();
  known.forEach((piece, rank) => {
    for (const table of piece.tables) {
      const key = `${piece.database}.${table}`;
      if (!bonus.has(key)) bonus.set(key, KNOWLEDGE_BONUS * KNOWLEDGE_DECAY ** rank);
    }
  });
  return bonus;
}
