/**
 * Which playbook a request should follow: BM25 over the playbooks' words, combined with embeddings
 * from the model endpoint when it has an embedding model (LLM_EMBEDDING_MODEL), so a request that
 * says "attrition" can still find the churn playbook. Retrieval never breaks a turn: when embedding
 * fails, ranking falls back to BM25 alone.
 *
 * The hybrid score of a playbook p:
 *
 *   lexical(p)  = bm25(p) / max(best bm25 among the playbooks, 1.5)      in [0, 1]
 *   semantic(p) = max(0, cosine(embedding of the request, embedding of p)) in [0, 1]
 *   score(p)    = lexical(p) / 2 + semantic(p)
 *
 * A playbook is returned when its score reaches 0.5. So a playbook that BM25 alone would follow
 * (best, at least 1.5) always qualifies; one sharing no word with the request needs a cosine of 0.5;
 * weak evidence of both kinds adds up; a request unrelated to every playbook gets none. Among
 * qualifying playbooks the embeddings break near-ties of BM25. The 0.5 assumes a model under which
 * unrelated texts stay well below a cosine of 0.5; with a model whose cosines start high, every
 * request would get a playbook and the threshold would need raising (not measured on real models).
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { LlmClient } from '../ports/llm.js';
import { BM25_MIN_SCORE, type Playbook, type RankedPlaybook, rankPlaybooks } from './playbooks.js';

/** The hybrid score a playbook must reach (see the file header). */
const HYBRID_MIN_SCORE = 0.5;

type Embed = NonNullable<LlmClient['embed']>;

export interface PlaybookRankingOptions {
  /**
   * `llm.embed`, present when the endpoint has an embedding model; without it, BM25 alone. Playbook
   * vectors are cached per function for the life of the process, so pass the same function each turn.
   */
  embed?: LlmClient['embed'];
  /** Cancels the embedding request; ranking then falls back to BM25 without a warning. */
  signal?: AbortSignal;
  /** Warned when embeddings fail. */
  logger?: Logger;
  /** How many playbooks to return at most. Default 1. */
  top?: number;
}

/** Playbook vectors per embed function (one per model client), keyed by a hash of the embedded text. */
const playbookVectors = new WeakMap<Embed, Map<string, number[]>>();

/**
 * The playbooks that fit the request best, best first; empty when none fits. Without `embed`, exactly
 * `rankPlaybooks` (BM25); with it, the hybrid score of the file header, which is then `score`.
 * Each playbook is embedded once per process; each call embeds the request (one request to the
 * endpoint, with any playbooks not embedded yet).
 */
export async function rankPlaybooksFor(
  playbooks: Playbook[],
  request: string,
  options: PlaybookRankingOptions = {},
): Promise<RankedPlaybook[]> {
  const { embed, signal, logger, top = 1 } = options;
  if (embed === undefined || playbooks.length === 0) return rankPlaybooks(playbooks, request, { top });
  let similarities: number[];
  try {
    similarities = await cosines(embed, playbooks, request, signal);
  } catch (error) {
    if (!signal?.aborted) logger?.warn({ err: error }, 'playbook embeddings failed; ranking by BM25');
    return rankPlaybooks(playbooks, request, { top });
  }
  const bm25 = new Map(
    rankPlaybooks(playbooks, request, { top: playbooks.length, minScore: 0 }).map((entry) => [
      entry.playbook,
      entry.score,
    ]),
  );
  const scale = Math.max(BM25_MIN_SCORE, ...bm25.values());
  return playbooks
    .map((playbook, index) => ({
      playbook,
      score: (bm25.get(playbook) ?? 0) / scale / 2 + Math.max(0, similarities[index] ?? 0),
    }))
    .filter((entry) => entry.score >= HYBRID_MIN_SCORE)
    .sort((left, right) => right.score - left.score || left.playbook.file.localeCompare(right.playbook.file))
    .slice(0, top);
}

/** The cosine between the request and each playbook, embedding the playbooks not cached yet. */
async function cosines(
  embed: Embed,
  playbooks: Playbook[],
  request: string,
  signal: AbortSignal | undefined,
): Promise<number[]> {
  const cached = playbookVectors.get(embed) ?? new Map<string, number[]>();
  playbookVectors.set(embed, cached);
  const documents = playbooks.map((playbook) => {
    const text = [playbook.title, playbook.tags.join(', '), playbook.when, playbook.body].join('\n');
    return { text, key: createHash('sha256').update(text).digest('hex') };
  });
  // Keyed by hash, so two identical playbooks are embedded once.
  const missing = [...new Map(documents.map((document) => [document.key, document])).values()].filter(
    ({ key }) => !cached.has(key),
  );
  const vectors = await embed(
    [request, ...missing.map(({ text }) => text)],
    signal === undefined ? undefined : { signal },
  );
  const query = vectors[0] ?? [];
  // Checked before caching, so one bad answer cannot spoil the later turns.
  if (vectors.length !== missing.length + 1) {
    throw new Error(`got ${vectors.length} embedding(s) for ${missing.length + 1} text(s)`);
  }
  if (vectors.some((vector) => vector.length !== query.length)) throw new Error('embeddings of different lengths');
  for (const [index, { key }] of missing.entries()) cached.set(key, vectors[index + 1] ?? []);
  return documents.map(({ key }) => cosine(query, cached.get(key) ?? []));
}

/** Cosine similarity; 0 when either vector is all zeros. Vectors of different lengths are an error. */
function cosine(left: number[], right: number[]): number {
  if (left.length !== right.length) {
    throw new Error(`embeddings of different lengths (${left.length} and ${right.length})`);
  }
  let dot = 0;
  let leftSquares = 0;
  let rightSquares = 0;
  left.forEach((value, index) => {
    const other = right[index] ?? 0;
    dot += value * other;
    leftSquares += value * value;
    rightSquares += other * other;
  });
  return leftSquares === 0 || rightSquares === 0 ? 0 : dot / Math.sqrt(leftSquares * rightSquares);
}
