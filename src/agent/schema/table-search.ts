/**
 * Which tables a question is about: BM25 over each table's words (its name counted thrice, its comment, its
 * columns' names and comments), plus a bonus for how much of a table's name the question says and for the tables
 * the turn's knowledge pieces name. A table's words are worked out once per description object and kept, so a
 * warm catalogue of a thousand tables scores in a few milliseconds.
 */
import type { TableDescription } from '../../ports/database.js';
import type { KnowledgePiece } from '../../ports/knowledge.js';
import { tokenize } from '../bm25.js';

/** A table of one of the turn's databases. */
export interface CatalogueTable {
  database: string;
  table: TableDescription;
}

export interface ScoredTable extends CatalogueTable {
  score: number;
}

interface TableWords {
  counts: Map<string, number>;
  length: number;
  /** The name's distinct words. */
  name: Set<string>;
}

const NAME_WEIGHT = 3;
const K1 = 1.2;
const B = 0.75;
/** Added for a table whose name's words the question says, scaled by the share said (squared). */
const NAME_BONUS = 2.5;
/** Added for a table the first knowledge piece names, decaying down the list. */
const KNOWLEDGE_BONUS = 4;
const KNOWLEDGE_DECAY = 0.85;

/** A table that is another's name plus words the question does not say (`x_archive` of `x`) keeps this share. */
const VARIANT_SHARE = 0.6;

const wordsOf = new WeakMap<TableDescription, TableWords>();
/** Identifier and comment texts recur across tables (`created_at`): their tokens are kept. */
const tokensOf = new Map<string, string[]>();
const TOKEN_CACHE_ENTRIES = 50_000;

function cachedTokens(text: string): string[] {
  let tokens = tokensOf.get(text);
  if (!tokens) {
    tokens = tokenize(text);
    if (tokensOf.size >= TOKEN_CACHE_ENTRIES) tokensOf.clear();
    tokensOf.set(text, tokens);
  }
  return tokens;
}

/** `customerID` -> `customer ID`, `MonthlyCharges` -> `Monthly Charges`, `sales_orders` -> `sales orders`. */
export function identifierText(name: string): string {
  return name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/_/g, ' ');
}

function tableWords(table: TableDescription): TableWords {
  let words = wordsOf.get(table);
  if (words) return words;
  const name = cachedTokens(identifierText(table.name));
  const tokens = [
    ...Array.from({ length: NAME_WEIGHT }, () => name).flat(),
    ...cachedTokens(table.comment ?? ''),
    ...table.columns.flatMap((column) => [
      ...cachedTokens(identifierText(column.name)),
      ...cachedTokens(column.comment ?? ''),
    ]),
  ];
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  words = { counts, length: tokens.length, name: new Set(name) };
  wordsOf.set(table, words);
  return words;
}

/**
 * Every table scored for the question and the turn's knowledge: those scored above zero best first (ties by
 * database, then name), then the rest in the order given.
 */
export function scoreTables(
  tables: readonly CatalogueTable[],
  question: string,
  known: readonly KnowledgePiece[],
): ScoredTable[] {
  const terms = [...new Set(tokenize(question))];
  const words = tables.map(({ table }) => tableWords(table));
  const averageLength = words.reduce((sum, entry) => sum + entry.length, 0) / Math.max(words.length, 1) || 1;
  const idf = new Map(
    terms.map((term) => {
      let containing = 0;
      for (const entry of words) if (entry.counts.has(term)) containing += 1;
      return [term, Math.log(1 + (tables.length - containing + 0.5) / (containing + 0.5))];
    }),
  );
  const knowledge = knowledgeBonus(known);
  const said = new Set(terms);
  const names = namesOf(tables);
  const scored: ScoredTable[] = [];
  const unscored: ScoredTable[] = [];
  tables.forEach((entry, index) => {
    const { counts, length, name } = words[index] as TableWords;
    const norm = K1 * (1 - B + (B * length) / averageLength);
    let score = 0;
    for (const term of terms) {
      const frequency = counts.get(term) ?? 0;
      if (frequency > 0) score += ((idf.get(term) ?? 0) * frequency * (K1 + 1)) / (frequency + norm);
    }
    let named = 0;
    for (const word of name) if (said.has(word)) named += 1;
    if (named > 0) score += NAME_BONUS * (named / name.size) ** 2;
    score += knowledge.get(`${entry.database}.${entry.table.name}`) ?? 0;
    if (score > 0 && isUnaskedVariant(entry, names, said)) score *= VARIANT_SHARE;
    (score > 0 ? scored : unscored).push({ ...entry, score });
  });
  scored.sort((a, b) => b.score - a.score || compare(a.database, b.database) || compare(a.table.name, b.table.name));
  return [...scored, ...unscored];
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const namesByTables = new WeakMap<readonly CatalogueTable[], Set<string>>();

/** `database.table` of every table, kept per list. */
function namesOf(tables: readonly CatalogueTable[]): Set<string> {
  let names = namesByTables.get(tables);
  if (!names) {
    names = new Set(tables.map((entry) => `${entry.database}.${entry.table.name}`));
    namesByTables.set(tables, names);
  }
  return names;
}

/** `x_daily` when the catalogue has `x` and the question does not say `daily`: a derived table, not the one asked. */
function isUnaskedVariant(entry: CatalogueTable, names: ReadonlySet<string>, said: ReadonlySet<string>): boolean {
  const name = entry.table.name;
  for (let cut = name.lastIndexOf('_'); cut > 0; cut = name.lastIndexOf('_', cut - 1)) {
    if (names.has(`${entry.database}.${name.slice(0, cut)}`)) {
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
