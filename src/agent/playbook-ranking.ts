/**
 * Which playbook a request should follow, if any: BM25 over the playbooks' words, combined with
 * embeddings from the model endpoint when it has an embedding model (LLM_EMBEDDING_MODEL), so a
 * request that says "attrition" can still find the churn playbook. Retrieval never breaks a turn:
 * when embedding fails, ranking falls back to BM25 alone.
 *
 * BM25 alone (`rankPlaybooks` in playbooks.ts). A playbook fits a request when all three hold:
 *
 *   - the request names what the playbook is about (its `about` front matter: `churn`, `customers`,
 *     `tables`, ...); a playbook without `about` skips this check;
 *   - at least 2 distinct words of the request are in its title, tags, `when` or `ask` (MIN_MATCHED_TERMS);
 *   - its fit, BM25 divided by the number of distinct words in the request, reaches 0.33 (BM25_MIN_SCORE).
 *
 * A request that names a playbook's file (a schedule's "Follow the playbook 'Churn driver analysis'
 * (churn-drivers.md)") follows that playbook whatever its fit, with or without embeddings.
 *
 * Why not a plain BM25 threshold: a DABench question (a long, precise question on someone's CSV) shares
 * dozens of analysis words with the playbooks ("train", "test", "logistic regression", "missing values",
 * "distribution") and scored up to 39, while "Which contract types churn most?" scores 1.9. Dividing by
 * the request's words stops length from winning; the subject stops method words from winning: a
 * survival classifier on the Titanic uses the churn-prediction playbook's words, but not "churn".
 *
 * Calibration (src/eval/playbook-choice.ts, measured with test/unit/playbook-choice.test.ts): 38
 * requests that should follow a named playbook (14 golden cases, the 4 playbooks' `ask`, 20 short
 * requests) and 275 that should follow none (257 DABench dev questions with their shared-file note,
 * 16 telco questions no playbook covers, the golden out-of-scope and active-customer requests).
 * Precision: right playbook / any playbook followed; recall: right playbook / requests that should
 * follow one.
 *
 *   rule                          threshold  precision  recall
 *   raw BM25 (before this change)    1.5       11.7%     94.7%   (every DABench question got one)
 *   raw BM25                         8          3.8%     26.3%
 *   per word                         0.35      68.5%     97.4%
 *   per word, >= 2 words             0.35      79.2%    100.0%   (DABench machine-learning questions)
 *   per word, about                  0.35      92.3%     94.7%
 *   per word, about, >= 2 words      0.25      94.7%     94.7%
 *                                    0.30      97.3%     94.7%   (golden out of scope)
 *                                    0.33     100.0%     94.7%   <- chosen
 *                                    0.35     100.0%     94.7%
 *                                    0.40     100.0%     86.8%
 *                                    0.45     100.0%     68.4%
 *
 * At 0.33 the lowest fit that must pass is 0.356 (golden-verified-payment-method) and the highest that must not is 0.313 (golden-out-of-scope, "customer ... spend" against
 * segmentation); no DABench question fits above 0.26. DABench case 22 (dabench-35, "row retention time"
 * outliers on a metabolome CSV) fitted eda-overview before; it names none of the playbooks' subjects
 * now. The two misses name no subject: "Give me an overview of the data" and "Find duplicate or missing
 * rows" follow none (with a CSV shared, "the data" is the CSV, not telco_db). Adding `data` and `rows`
 * to the subjects would take them in, but only between 0.34 and 0.356: dabench-359 fits eda-overview
 * at 0.340.
 *
 * With embeddings, the hybrid score of a playbook p:
 *
 *   lexical(p)  = fit(p) / max(best fit among the playbooks, 0.33)      in [0, 1]
 *   semantic(p) = max(0, cosine(embedding of the request, embedding of p)) in [0, 1]
 *   score(p)    = lexical(p) / 2 + semantic(p)
 *
 * A playbook is returned when its score reaches 0.5. So a playbook that BM25 alone would follow
 * always qualifies; one sharing no subject or too few words with the request (fit 0) needs a cosine
 * of 0.5; weak evidence of both kinds adds up. Among qualifying playbooks the embeddings break
 * near-ties of BM25. The 0.5 is not calibrated: that needs the embedding model, and none is available
 * where the calibration runs. It assumes a model under which unrelated texts stay well below a cosine
 * of 0.5; with a model whose cosines start high, DABench questions would follow playbooks on meaning
 * alone, and the threshold would need raising: run the calibration set through `rankPlaybooksFor`
 * with that model's `embed` to choose it.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../base/logger.js';
import type { LlmClient } from '../ports/llm.js';
import {
  BM25_MIN_SCORE,
  byFit,
  namesPlaybook,
  type Playbook,
  type RankedPlaybook,
  rankPlaybooks,
} from './playbooks.js';

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
 * `rankPlaybooks` (BM25 fit); with it, the hybrid score of the file header, which is then `score`.
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
  const fits = new Map(
    rankPlaybooks(playbooks, request, { top: playbooks.length, minScore: 0 }).map((entry) => [
      entry.playbook,
      entry.score,
    ]),
  );
  const scale = Math.max(BM25_MIN_SCORE, ...fits.values());
  return playbooks
    .map((playbook, index) => ({
      playbook,
      score: (fits.get(playbook) ?? 0) / scale / 2 + Math.max(0, similarities[index] ?? 0),
    }))
    .filter((entry) => entry.score >= HYBRID_MIN_SCORE || namesPlaybook(request, entry.playbook))
    .sort(byFit(request))
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
