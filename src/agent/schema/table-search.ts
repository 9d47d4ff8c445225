/**
 * Which tables a question is about: BM25 over each table's words (`table-words.ts`), plus a bonus for how much of a
 * table's name the question says and for the tables the turn's knowledge pieces name; a derived table (`x_daily` of
 * `x`) the question does not ask for by its suffix keeps only a share. Everything that depends on the tables alone
 * (postings, length norms, name sizes, derived tables' own words) is worked out once per table list, so a turn
 * touches only the postings of its own words and ranks only the few best: on a thousand tables about what it costs
 * on eight.
 */
import type { TableDescription } from '../../ports/database.js';
import type { KnowledgePiece } from '../../ports/knowledge.js';
import { cachedTokens, identifierText, questionWords, tableWords } from './table-words.js';

export { identifierText } from './table-words.js';

/** A table of one of the turn's databases. */
export interface CatalogueTable {
  database: string;
  table: TableDescription;
}

export interface ScoredTable extends CatalogueTable {
  score: number;
}

/** A question's scores over a table list. */
export interface TableScores {
  /** The `count` best tables that scored above zero, best first (ties by database, then name). */
  best(count: number): ScoredTable[];
  /** The score of `database.table`: 0 when it scored nothing or is not in the list. */
  scoreOf(key: string): number;
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
  /** word -> [table index, frequency, 1 when the table's name has the word] triples, flattened. */
  postings: Map<string, number[]>;
  /** BM25's length normalisation per table. */
  norms: Float64Array;
  /** Distinct words in each table's name. */
  nameSizes: Uint16Array;
  /** Per table: the words a derived table's name adds to its base's (`daily` of `x_daily`), else undefined. */
  variantWords: Array<readonly string[] | undefined>;
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
      const inName = entry.name.has(word) ? 1 : 0;
      const list = postings.get(word);
      if (list) list.push(position, frequency, inName);
      else postings.set(word, [position, frequency, inName]);
    }
  });
  const keys = new Map(tables.map((entry, position) => [`${entry.database}.${entry.table.name}`, position]));
  index = {
    postings,
    norms: Float64Array.from(all, (entry) => K1 * (1 - B + (B * entry.length) / averageLength)),
    nameSizes: Uint16Array.from(all, (entry) => Math.max(entry.name.size, 1)),
    variantWords: tables.map((entry) => variantWords(entry, keys)),
    keys,
  };
  indexes.set(tables, index);
  return index;
}

/** `x_daily` when the list has `x`: the words of `daily`, which a question must say to ask for it. */
function variantWords(entry: CatalogueTable, keys: ReadonlyMap<string, number>): readonly string[] | undefined {
  const name = entry.table.name;
  for (let cut = name.lastIndexOf('_'); cut > 0; cut = name.lastIndexOf('_', cut - 1)) {
    if (keys.has(`${entry.database}.${name.slice(0, cut)}`)) return cachedTokens(identifierText(name.slice(cut + 1)));
  }
  return undefined;
}

/** The table of `database.table` in the list, if there is one (looked up in the kept index). */
export function tableByKey(tables: readonly CatalogueTable[], key: string): CatalogueTable | undefined {
  const position = indexOf(tables).keys.get(key);
  return position === undefined ? undefined : tables[position];
}

/** The question's and the turn's knowledge's scores over the tables. */
export function scoreTables(
  tables: readonly CatalogueTable[],
  question: string,
  known: readonly KnowledgePiece[],
): TableScores {
  const index = indexOf(tables);
  const said = new Set(questionWords(question));
  const scores = new Float64Array(tables.length);
  const named = new Uint16Array(tables.length);
  const seen = new Uint8Array(tables.length);
  const touched: number[] = [];
  const touch = (position: number) => {
    if (seen[position] === 0) {
      seen[position] = 1;
      touched.push(position);
    }
  };
  for (const term of said) {
    const postings = index.postings.get(term);
    if (!postings) continue;
    const containing = postings.length / 3;
    const idf = Math.log(1 + (tables.length - containing + 0.5) / (containing + 0.5));
    for (let at = 0; at < postings.length; at += 3) {
      const position = postings[at] as number;
      const frequency = postings[at + 1] as number;
      scores[position] =
        (scores[position] as number) + (idf * frequency * (K1 + 1)) / (frequency + (index.norms[position] as number));
      named[position] = (named[position] as number) + (postings[at + 2] as number);
      touch(position);
    }
  }
  for (const [key, bonus] of knowledgeBonus(known)) {
    const position = index.keys.get(key);
    if (position === undefined) continue;
    scores[position] = (scores[position] as number) + bonus;
    touch(position);
  }
  for (const position of touched) {
    let score =
      (scores[position] as number) +
      NAME_BONUS * ((named[position] as number) / (index.nameSizes[position] as number)) ** 2;
    const variant = index.variantWords[position];
    if (variant && !variant.every((word) => said.has(word))) score *= VARIANT_SHARE;
    scores[position] = score;
  }
  return {
    best: (count) => best(tables, scores, touched, count),
    scoreOf: (key) => {
      const position = index.keys.get(key);
      return position === undefined ? 0 : (scores[position] as number);
    },
  };
}

/** The `count` best of the touched tables: kept in order while walking them once (`count` is a handful). */
function best(
  tables: readonly CatalogueTable[],
  scores: Float64Array,
  touched: readonly number[],
  count: number,
): ScoredTable[] {
  const before = (a: number, b: number) => {
    const difference = (scores[a] as number) - (scores[b] as number);
    if (difference !== 0) return difference > 0;
    const x = tables[a] as CatalogueTable;
    const y = tables[b] as CatalogueTable;
    return x.database !== y.database ? x.database < y.database : x.table.name < y.table.name;
  };
  const top: number[] = [];
  if (count <= 0) return [];
  for (const position of touched) {
    if (!((scores[position] as number) > 0)) continue;
    if (top.length === count) {
      if (!before(position, top[count - 1] as number)) continue;
      top.pop();
    }
    let at = top.length;
    while (at > 0 && before(position, top[at - 1] as number)) at -= 1;
    top.splice(at, 0, position);
  }
  return top.map((position) => ({ ...(tables[position] as CatalogueTable), score: scores[position] as number }));
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
