/**
 * The knowledge store on files: `<folder>/<database>/*.yaml|*.yml|*.md`, from the folders given
 * (tally's own telco set, then TALLY_KNOWLEDGE_DIR). Every piece (a definition with its synonyms, a
 * table with its columns, a join path, a note, a verified query) is ranked against a request with
 * BM25, as playbooks are; the pieces above the threshold go into the prompts, best first, within a
 * budget of characters. What was learned from a thread carries that thread's grants (`thread:` and
 * `grants:` in its file) and reaches only readers who hold them all.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { bm25Scores, tokenize } from '../agent/bm25.js';
import { offeredTo } from '../agent/derived-access.js';
import { type FileIssue, KnowledgeFileError } from '../base/errors.js';
import type { Reader } from '../ports/access.js';
import type { Database } from '../ports/database.js';
import type { Knowledge, KnowledgePiece, ReadableTables, VerifiedQuery } from '../ports/knowledge.js';
import { parseKnowledgeFile } from './knowledge-file.js';
import { derivationOf, indexed, nameTables, piecesOf, referencesOf, type SchemaReference } from './knowledge-pieces.js';
import { type IndexedPiece, readablePiece } from './readable-pieces.js';

export type { SchemaReference } from './knowledge-pieces.js';

/** tally's own knowledge set, for the demo telco database (folder `telco_db`). */
export const TELCO_KNOWLEDGE_DIR = join(import.meta.dirname, '..', '..', 'telco_data', 'knowledge');

const TELCO_TABLES = ['user_demographics', 'user_services', 'user_payments', 'user_churn'];

/** The telco set's folder, aliased to every configured database that holds the telco train tables. */
export async function telcoAliases(databases: readonly Database[]): Promise<Record<string, string[]>> {
  const names: string[] = [];
  for (const database of databases) {
    const tables = new Set((await database.listTables().catch(() => [])).map((table) => table.name));
    if (TELCO_TABLES.every((table) => tables.has(table))) names.push(database.name);
  }
  return { telco_db: names };
}

/**
 * A piece must score this much and share at least MIN_TERMS distinct words with the request to be
 * included: one rare word alone ("last" in "the weather last week") is no match. Measured on the
 * telco set: requests that need a piece score it 3.4 to 9.6 with two or more words in common;
 * unrelated ones score 0, or up to 2.9 on a single word.
 */
export const KNOWLEDGE_MIN_SCORE = 1.5;
const MIN_TERMS = 2;
/** Pieces per request at most, and the characters they may fill. */
const MAX_PIECES = 4;
const MAX_CHARS = 2400;

/** Where verified queries learned from threads are written (query-proposals.ts): `verified-<name>.yaml`. */
const LEARNED_FILE = /^verified-.*\.ya?ml$/i;

export interface KnowledgeLoadOptions {
  /**
   * The folder accepted sections' queries are written to (TALLY_KNOWLEDGE_DIR). A learned file there that records
   * no thread was saved before tally recorded one: its grants are not known, so under a policy no one gets it.
   */
  learnedDir?: string;
}

export class FileKnowledge implements Knowledge {
  private constructor(
    private readonly pieces: IndexedPiece[],
    private readonly queries: VerifiedQuery[],
    /** The tables and columns the files name (tables, joins). */
    readonly references: readonly SchemaReference[],
  ) {}

  /**
   * Reads every database folder of the given knowledge folders; a folder that does not exist is
   * skipped. `aliases` names the databases a folder's knowledge is for instead of its own name (the
   * telco set is for whichever configured database holds the telco tables, whatever its name).
   */
  static async load(
    folders: readonly string[],
    aliases: Record<string, readonly string[]> = {},
    options: KnowledgeLoadOptions = {},
  ): Promise<FileKnowledge> {
    const pieces: IndexedPiece[] = [];
    const queries: VerifiedQuery[] = [];
    const references: SchemaReference[] = [];
    for (const folder of folders) {
      for (const name of await subfolders(folder)) {
        const targets = aliases[name]?.length ? (aliases[name] ?? []) : [name];
        for (const database of targets) {
          const directory = join(folder, name);
          for (const name of (await readdir(directory)).filter((file) => /\.(ya?ml|md)$/i.test(file)).sort()) {
            const path = join(directory, name);
            const source = relative(folder, path);
            const parsed = parseKnowledgeFile(name, await readFile(path, 'utf8'));
            if (parsed.issues.length > 0) throw new KnowledgeFileError(path, parsed.issues);
            const derived = derivationOf(parsed.knowledge, folder === options.learnedDir && LEARNED_FILE.test(name));
            const derivedFrom = derived ? { derivedFrom: derived } : {};
            pieces.push(...piecesOf(database, source, parsed.knowledge).map((piece) => ({ ...piece, ...derivedFrom })));
            references.push(...referencesOf(database, source, parsed.knowledge));
            pieces.push(
              ...parsed.notes.map((note) =>
                indexed({ database, kind: 'note', title: note.title, text: note.text.slice(0, 800), source }),
              ),
            );
            queries.push(
              ...parsed.knowledge.queries.map((query) => ({
                database,
                name: query.name,
                question: query.question,
                sql: query.sql,
                parameters: query.parameters.map(({ name: parameter, description, default: value }) => ({
                  name: parameter,
                  ...(description ? { description } : {}),
                  ...(value === undefined ? {} : { default: value }),
                })),
                verifiedBy: query.verified_by,
                source,
                ...derivedFrom,
              })),
            );
          }
        }
      }
    }
    nameTables(pieces, references, queries);
    return new FileKnowledge(pieces, queries, references);
  }

  /** Every verified query, for `tally knowledge check`. */
  get verifiedQueries(): readonly VerifiedQuery[] {
    return this.queries;
  }

  /** The databases the store knows about. */
  get databases(): string[] {
    return [...new Set(this.pieces.map((piece) => piece.database))].sort();
  }

  relevant(request: string, readable: readonly ReadableTables[], reader?: Reader): KnowledgePiece[] {
    const tables = new Map(
      readable.map((entry) => [entry.database, new Set(entry.tables.map((table) => table.toLowerCase()))]),
    );
    const candidates = this.pieces.flatMap((piece) => {
      const allowed = tables.get(piece.database);
      const named = allowed !== undefined && piece.tables.every((table) => allowed.has(table.toLowerCase()));
      const visible = named && offeredTo(piece.derivedFrom, reader) ? readablePiece(piece, reader) : undefined;
      return visible ? [visible] : [];
    });
    if (candidates.length === 0) return [];
    const terms = [...new Set(tokenize(request))];
    const scores = bm25Scores(
      candidates.map((piece) => piece.tokens),
      terms,
    );
    const ranked = candidates
      .map((piece, index) => ({ piece, score: scores[index] ?? 0 }))
      .filter(
        (entry) =>
          entry.score >= KNOWLEDGE_MIN_SCORE &&
          terms.filter((term) => entry.piece.tokens.includes(term)).length >= MIN_TERMS,
      )
      .sort((left, right) => right.score - left.score);
    const chosen: KnowledgePiece[] = [];
    let chars = 0;
    for (const { piece } of ranked.slice(0, MAX_PIECES)) {
      if (chars + piece.text.length > MAX_CHARS) continue;
      chars += piece.text.length;
      const { tokens: _, named: __, columns: ___, described: ____, ...plain } = piece;
      chosen.push(plain);
    }
    return chosen;
  }

  offersQueries(databases: readonly string[], reader?: Reader): boolean {
    return this.queries.some((query) => databases.includes(query.database) && offeredTo(query.derivedFrom, reader));
  }

  query(database: string, name: string, reader?: Reader): VerifiedQuery | undefined {
    const wanted = name.trim().toLowerCase();
    const found = this.queries.find((query) => query.database === database && query.name.toLowerCase() === wanted);
    return found && offeredTo(found.derivedFrom, reader) ? found : undefined;
  }
}

async function subfolders(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw new KnowledgeFileError(folder, [
      { entry: '(folder)', field: '', message: error.message } satisfies FileIssue,
    ]);
  });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}
