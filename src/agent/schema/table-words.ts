/**
 * A table's words for the search: its name (counted thrice), comment, and columns' names and comments, split at
 * snake and camel case, stemmed by the playbooks' tokenizer, period words folded ("weekly" is "week"). Worked out
 * once per description object; the texts' tokens are also kept, since column names recur across tables.
 */
import type { TableDescription } from '../../ports/database.js';
import { tokenize } from '../bm25.js';

export interface TableWords {
  counts: Map<string, number>;
  length: number;
  /** The name's distinct words. */
  name: Set<string>;
}

const NAME_WEIGHT = 3;

const wordsOf = new WeakMap<TableDescription, TableWords>();
/** Identifier and comment texts recur across tables (`created_at`): their tokens are kept. */
const tokensOf = new Map<string, string[]>();
const TOKEN_CACHE_ENTRIES = 50_000;

/** Period words analysts say either way ("each week", "weekly"): one stem each. */
const PERIODS: Record<string, string> = {
  daily: 'day',
  weekly: 'week',
  monthly: 'month',
  quarterly: 'quarter',
  yearly: 'year',
  annual: 'year',
  hourly: 'hour',
};

/** The shared tokenizer, with period words folded. */
export function words(text: string): string[] {
  return tokenize(text).map((token) => PERIODS[token] ?? token);
}

/**
 * The question's words, and each two neighbours run together: a column named as one folded word
 * (PostgreSQL's `seniorcitizen`, `paymentmethod`) matches "senior citizens", "payment method".
 */
export function questionWords(text: string): string[] {
  const raw = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const pairs = raw.slice(1).flatMap((word, index) => words(`${raw[index]}${word}`));
  return [...words(text), ...pairs];
}

export function cachedTokens(text: string): string[] {
  let tokens = tokensOf.get(text);
  if (!tokens) {
    tokens = words(text);
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

export function tableWords(table: TableDescription): TableWords {
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
