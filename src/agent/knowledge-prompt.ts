/** The knowledge that fits a request, for what the person may read, and as text for the stage prompts. */
import type { Reader } from '../ports/access.js';
import type { Database } from '../ports/database.js';
import type { Knowledge, KnowledgePiece } from '../ports/knowledge.js';
import type { Conversation } from './conversation.js';

/** The pieces that fit; only what this person may read (the turn's databases list their granted tables alone). */
export async function relevantKnowledge(
  knowledge: Knowledge,
  topic: string,
  databases: readonly Database[],
): Promise<KnowledgePiece[]> {
  const readable = await Promise.all(
    databases.map(async (database) => ({
      database: database.name,
      // The kept catalogue when there is one: listing counts rows, which on a thousand tables is a thousand queries.
      tables: (database.catalogue
        ? (await database.catalogue({ kept: true })).tables
        : await database.listTables()
      ).map((table) => table.name),
    })),
  );
  return knowledge.relevant(topic, readable);
}

/**
 * The knowledge as one reader may have it: pieces and verified queries derived from a thread whose grants they lack,
 * and descriptions of columns they may not read, are not there (not listed, not run by name). No reader: all of it.
 */
export function knowledgeFor(knowledge: Knowledge, reader: Reader | undefined): Knowledge {
  if (!reader) return knowledge;
  return {
    relevant: (request, readable) => knowledge.relevant(request, readable, reader),
    query: (database, name) => knowledge.query(database, name, reader),
    offersQueries: (databases) => knowledge.offersQueries(databases, reader),
  };
}

/**
 * The pieces as text for the prompts ('' when none fit): each with its kind, and its database when they come from
 * several. Not its file: every request of the turn repeats the text, and the model has no use for where it is kept.
 */
export function formatKnowledge(pieces: readonly KnowledgePiece[]): string {
  if (pieces.length === 0) return '';
  const several = new Set(pieces.map((piece) => piece.database)).size > 1;
  const lines = pieces.map(
    (piece) => `- ${piece.kind}${several ? ` (${piece.database})` : ''}: ${piece.text.replace(/\n/g, '\n  ')}`,
  );
  return ['what the organisation knows (follow its definitions; run its verified queries by name):', ...lines].join(
    '\n',
  );
}

/** What a turn works on, for retrieval: the request, with a clarified or resumed one. */
export function topicOf(turn: { conversation: Conversation; text: string; resume?: unknown }): string {
  const { conversation } = turn;
  return [
    conversation.pending?.kind === 'triage' ? conversation.pending.request : undefined,
    turn.resume || conversation.pending ? conversation.request : undefined,
    turn.text,
  ]
    .filter(Boolean)
    .join('\n');
}
