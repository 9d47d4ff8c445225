/**
 * What of a knowledge piece one reader may see, under the access policy. The store already leaves out pieces that
 * name a table they may not read; a table they may read can still have columns they may not (a grant's `columns`),
 * and a description of such a column tells them what is in it. So a table's piece loses those columns' lines, and
 * any other piece (a definition, a join, a query, a note) that names one is left out whole.
 */

import { tokenize } from '../agent/bm25.js';
import type { Reader } from '../ports/access.js';
import type { KnowledgePiece } from '../ports/knowledge.js';

/** A piece as the store indexes it. */
export interface IndexedPiece extends KnowledgePiece {
  tokens: string[];
  /** The text tables are looked for in (its prompt text, and a query's SQL). */
  named: string;
  /** The columns of its tables it names, as its database's knowledge knows them. */
  columns: Array<{ table: string; column: string }>;
  /** A table's piece: its first line and one line per column, so lines can be left out. */
  described?: { head: string; columns: Array<{ column: string; line: string }> };
}

/** The piece as `reader` may see it; undefined when it describes a column they may not read. */
export function readablePiece(piece: IndexedPiece, reader: Reader | undefined): IndexedPiece | undefined {
  if (!reader) return piece;
  // Masked columns may be described (the reader sees them masked); only a column they may not see at all is hidden.
  const seen = (table: string, column: string) =>
    reader.mayRead({ [`${piece.database}/${table}`]: { [column]: 'redact' } });
  const { described } = piece;
  if (!described) return piece.columns.every(({ table, column }) => seen(table, column)) ? piece : undefined;
  const lines = described.columns.filter(({ column }) => seen(piece.title, column));
  if (lines.length === described.columns.length) return piece;
  const text = [described.head, ...lines.map(({ line }) => line)].join('\n');
  return {
    ...piece,
    text,
    named: text,
    tokens: tokenize(`${piece.title} ${text}`),
    columns: piece.columns.filter(({ column }) => lines.some((line) => line.column === column)),
    described: { head: described.head, columns: lines },
  };
}
