/** The knowledge pieces that fit a request, as text for the stage prompts ('' when none fit). */
import type { KnowledgePiece } from '../ports/knowledge.js';

export function formatKnowledge(pieces: readonly KnowledgePiece[]): string {
  if (pieces.length === 0) return '';
  const lines = pieces.map(
    (piece) => `- ${piece.kind} (${piece.database}, ${piece.source}): ${piece.text.replace(/\n/g, '\n  ')}`,
  );
  return [
    'what the organisation knows about this data (follow its definitions; prefer its verified queries):',
    ...lines,
  ].join('\n');
}
