/**
 * The pieces one knowledge file holds, as the store indexes them: a definition, a table with its
 * columns (a line each, so a reader's withheld columns can be left out), a join, a verified query; the
 * tables and columns each names; and what a file learned from a thread records of it.
 */

import { tokenize } from '../agent/bm25.js';
import type { Derivation } from '../ports/access.js';
import type { KnowledgePiece, VerifiedQuery } from '../ports/knowledge.js';
import type { KnowledgeYaml } from './knowledge-file.js';
import type { IndexedPiece } from './readable-pieces.js';

/** A table (and column) a knowledge file names, for `tally knowledge check`. */
export interface SchemaReference {
  database: string;
  source: string;
  table: string;
  column?: string;
}

/** What a file records of the thread it was learned from; `learned`: a learned file, known or not. */
export function derivationOf(knowledge: KnowledgeYaml, learned: boolean): Derivation | undefined {
  const { thread, grants } = knowledge;
  if (!thread && !grants && !learned) return undefined;
  return { ...(thread ? { thread } : {}), ...(grants ? { grantsUsed: grants } : {}) };
}

/** A piece with what retrieval needs: its words, and the text tables and columns are looked for in. */
export function indexed(
  piece: Omit<KnowledgePiece, 'tables'>,
  extra = '',
  described?: IndexedPiece['described'],
): IndexedPiece {
  return {
    ...piece,
    tables: [],
    tokens: tokenize(`${piece.title} ${piece.text} ${extra}`),
    named: `${piece.text} ${extra}`,
    columns: [],
    ...(described ? { described } : {}),
  };
}

/**
 * The tables a piece names: every table its database's knowledge knows of that appears in its text or SQL; and the
 * columns of those tables it names, as the knowledge knows them.
 */
export function nameTables(
  pieces: IndexedPiece[],
  references: readonly SchemaReference[],
  queries: readonly VerifiedQuery[],
): void {
  const known = new Map<string, Set<string>>();
  const add = (database: string, table: string) => known.set(database, (known.get(database) ?? new Set()).add(table));
  for (const reference of references) add(reference.database, reference.table);
  for (const query of queries) {
    for (const match of query.sql.matchAll(/\b(?:from|join)\s+[`"]?(\w+)/gi)) add(query.database, match[1] ?? '');
  }
  const columnsOf = new Map<string, Set<string>>();
  for (const { database, table, column } of references) {
    if (column === undefined) continue;
    const key = `${database}/${table.toLowerCase()}`;
    columnsOf.set(key, (columnsOf.get(key) ?? new Set()).add(column));
  }
  for (const piece of pieces) {
    const words = new Set(piece.named.toLowerCase().match(/\w+/g) ?? []);
    piece.tables = [...(known.get(piece.database) ?? [])].filter((table) => words.has(table.toLowerCase()));
    piece.columns = piece.tables.flatMap((table) =>
      [...(columnsOf.get(`${piece.database}/${table.toLowerCase()}`) ?? [])]
        .filter((column) => words.has(column.toLowerCase()))
        .map((column) => ({ table, column })),
    );
  }
}

/** The pieces of one file's YAML: its definitions, tables, joins and verified queries. */
export function piecesOf(database: string, source: string, knowledge: KnowledgeYaml): IndexedPiece[] {
  const definitions = knowledge.definitions.map((definition) => {
    const synonyms = definition.synonyms.length > 0 ? ` (also: ${definition.synonyms.join(', ')})` : '';
    const sql = definition.sql ? ` SQL: ${definition.sql}` : '';
    return indexed({
      database,
      kind: 'definition',
      title: definition.name,
      text: `${definition.name}${synonyms}: ${definition.definition}${sql}`,
      source,
    });
  });
  const tables = Object.entries(knowledge.tables).map(([table, entry]) => {
    const columns = Object.entries(entry.columns).map(([column, about]) => ({
      column,
      line: `  ${
        typeof about === 'string'
          ? `${column}: ${about}`
          : `${column}${about.synonyms.length > 0 ? ` (also: ${about.synonyms.join(', ')})` : ''}: ${about.description}`
      }`,
    }));
    const head = `${table}${entry.description ? `: ${entry.description}` : ''}`;
    const text = [head, ...columns.map(({ line }) => line)].join('\n');
    return indexed({ database, kind: 'table', title: table, text, source }, '', { head, columns });
  });
  const joins = knowledge.joins.map((join) =>
    indexed({
      database,
      kind: 'join',
      title: join.tables.join(' + '),
      text: `join ${join.tables.join(' and ')} on ${join.on}${join.note ? ` (${join.note})` : ''}`,
      source,
    }),
  );
  const queries = knowledge.queries.map((query) => {
    const parameters =
      query.parameters.length > 0
        ? ` Parameters: ${query.parameters.map((parameter) => parameter.name).join(', ')}.`
        : '';
    return indexed(
      {
        database,
        kind: 'query',
        title: query.name,
        // Its kind says it is a verified query; retrieval still knows it by those words.
        text: `"${query.name}" (verified by ${query.verified_by}): ${query.question}${parameters}`,
        source,
      },
      `verified query ${query.sql}`,
    );
  });
  return [...definitions, ...tables, ...joins, ...queries];
}

/** The tables and columns one file's YAML names (its tables' columns, its joins' keys). */
export function referencesOf(database: string, source: string, knowledge: KnowledgeYaml): SchemaReference[] {
  const tables = Object.entries(knowledge.tables).flatMap(([table, entry]) => [
    { database, source, table },
    ...Object.keys(entry.columns).map((column) => ({ database, source, table, column })),
  ]);
  const joins = knowledge.joins.flatMap((join) => [
    ...join.tables.map((table) => ({ database, source, table })),
    ...[...join.on.matchAll(/(\w+)\.(\w+)/g)].map((match) => ({
      database,
      source,
      table: match[1] ?? '',
      column: match[2] ?? '',
    })),
  ]);
  return [...tables, ...joins];
}
