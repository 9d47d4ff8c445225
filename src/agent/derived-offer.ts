/**
 * What a turn put before the model that the organisation published: a playbook it follows, a verified query or a
 * knowledge piece derived from a thread. Each offer is audited (DESIGN §9: every data access leaves a record), and a
 * derived one adds its grants to the thread's, since the thread's prompts now hold what it quotes.
 */
import type { Derivation } from '../ports/access.js';
import type { KnowledgePiece } from '../ports/knowledge.js';

export interface Offer {
  kind: 'playbook' | 'verified-query' | 'knowledge';
  /** A playbook's title, a query's name, a piece's title. */
  name: string;
  /** Its file: a playbook's file name, a knowledge file relative to its folder. */
  source: string;
  /** Present when it was derived from a thread. */
  derivedFrom?: Derivation;
}

/** The offers among knowledge pieces put into a prompt: every verified query, and every piece derived from a thread. */
export function offersOf(pieces: readonly KnowledgePiece[]): Offer[] {
  return pieces
    .filter((piece) => piece.kind === 'query' || piece.derivedFrom)
    .map((piece) => ({
      kind: piece.kind === 'query' ? ('verified-query' as const) : ('knowledge' as const),
      name: piece.title,
      source: piece.source,
      ...(piece.derivedFrom ? { derivedFrom: piece.derivedFrom } : {}),
    }));
}
