/**
 * What the organisation knows about its data, kept per database in files reviewed like code
 * (`knowledge/<database>/`): business definitions with their synonyms, table and column
 * descriptions, join paths, notes, and verified queries. The agent asks for the pieces relevant to a
 * request and runs verified queries by name. What was learned from a thread (a verified query from an
 * accepted section) records the thread's grants, and reaches only people who hold them all.
 */
import type { Derivation, Reader } from './access.js';

export type KnowledgeKind = 'definition' | 'table' | 'join' | 'query' | 'note';

/** One retrievable piece, as it goes into a prompt. */
export interface KnowledgePiece {
  database: string;
  kind: KnowledgeKind;
  /** e.g. `churn rate`, `user_payments`, `churn rate by contract`. */
  title: string;
  /** The prompt text (one or a few lines). */
  text: string;
  /** The file it came from, relative to its knowledge folder. */
  source: string;
  /** The tables it names: it is shown only to someone who may read all of them. */
  tables: string[];
  /** Learned from a thread: shown only to someone who holds every grant that thread used. */
  derivedFrom?: Derivation;
}

/** A database and the tables someone may read in it (under the access policy). */
export interface ReadableTables {
  database: string;
  tables: readonly string[];
}

export interface QueryParameter {
  name: string;
  description?: string;
  /** Used by `tally knowledge check` and when the caller gives none. */
  default?: string | number;
}

/** A question with SQL someone verified; `{{name}}` in the SQL stands for a parameter. */
export interface VerifiedQuery {
  database: string;
  name: string;
  question: string;
  sql: string;
  parameters: QueryParameter[];
  verifiedBy: string;
  source: string;
  /** Learned from a thread: run only for someone who holds every grant that thread used. */
  derivedFrom?: Derivation;
}

export interface Knowledge {
  /**
   * The pieces that fit the request, best first (none when nothing fits), of these databases only
   * and naming only tables the person may read: what they may not read never reaches a prompt.
   * With `reader` (under an access policy), also none derived from a thread whose grants they lack,
   * and no description of a column they may not read.
   */
  relevant(request: string, readable: readonly ReadableTables[], reader?: Reader): KnowledgePiece[];
  /** A verified query of that database by name (case-insensitive); with `reader`, only one offered to them. */
  query(database: string, name: string, reader?: Reader): VerifiedQuery | undefined;
  /**
   * Whether any verified query of these databases is offered to `reader`: the turn then lists the tool that runs
   * them, on every request of the thread alike (whether or not one fits the request), so the tools stay a prefix
   * the provider's prompt cache can serve.
   */
  offersQueries(databases: readonly string[], reader?: Reader): boolean;
}

export const NO_KNOWLEDGE: Knowledge = { relevant: () => [], query: () => undefined, offersQueries: () => false };
