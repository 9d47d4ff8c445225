/** Playbook retrieval with injected embedding functions: the hybrid score, its threshold, caching and fallback. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { stem, tokenize } from '../../src/agent/bm25.js';
import { rankPlaybooksFor } from '../../src/agent/playbook-ranking.js';
import { loadPlaybooks, type Playbook, rankPlaybooks } from '../../src/agent/playbooks.js';
import { LlmUnavailableError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { NAMED_REQUESTS, PLAYBOOK_REQUESTS, SUBJECTLESS_REQUESTS } from '../support/playbook-requests.js';

const playbooks = await loadPlaybooks();

/**
 * A stand-in embedding model that knows synonyms: each dimension is a concept, and a text's vector
 * counts the words of each concept ("attrition" and "leave" both count as churn).
 */
const CONCEPTS = [
  ['churn', 'attrition', 'leave', 'leaving', 'cancel', 'quit', 'defect', 'stay', 'retention'],
  ['driver', 'drive', 'factor', 'reason', 'explain', 'why', 'distinguish', 'significant', 'cause'],
  ['predict', 'model', 'forecast', 'risk', 'score', 'auc', 'probability', 'future'],
  ['segment', 'cluster', 'group', 'persona', 'type', 'kmeans', 'profile'],
  ['consistent', 'duplicate', 'missing', 'null', 'blank', 'audit', 'quality', 'match', 'integrity', 'orphan'],
  ['overview', 'describe', 'column', 'summary', 'explore', 'distribution', 'shape'],
];
const conceptOf = new Map(CONCEPTS.flatMap((words, index) => words.map((word) => [stem(word), index] as const)));

function conceptVector(text: string): number[] {
  const vector = CONCEPTS.map(() => 0);
  for (const token of tokenize(text)) {
    const index = conceptOf.get(token);
    if (index !== undefined) vector[index] = (vector[index] ?? 0) + 1;
  }
  return vector;
}

/** A fresh embed function (so a fresh cache) that records the texts of each call. */
function conceptEmbedder() {
  const calls: string[][] = [];
  const embed = async (texts: string[]) => {
    calls.push(texts);
    return texts.map(conceptVector);
  };
  return { embed, calls };
}

function captureLogs() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'trace', destination }) };
}

const files = (ranked: Array<{ playbook: Playbook }>) => ranked.map((entry) => entry.playbook.file);

const UNRELATED = ["What's the weather in Paris?", 'Write me a poem', 'Translate hello into German'];

describe('rankPlaybooksFor', () => {
  it('is exactly BM25 without an embed function', async () => {
    for (const [request] of PLAYBOOK_REQUESTS) {
      expect(await rankPlaybooksFor(playbooks, request, { top: 3 })).toEqual(
        rankPlaybooks(playbooks, request, { top: 3 }),
      );
    }
  });

  it.each(NAMED_REQUESTS)('with embeddings, still follows the BM25 pick for "%s"', async (request, file) => {
    const { embed } = conceptEmbedder();
    const [best] = await rankPlaybooksFor(playbooks, request, { embed });
    expect(best?.playbook.file).toBe(file);
    expect(best?.playbook.file).toBe(rankPlaybooks(playbooks, request)[0]?.playbook.file);
  });

  it.each(UNRELATED)('with embeddings, follows no playbook for "%s"', async (request) => {
    const { embed } = conceptEmbedder();
    expect(await rankPlaybooksFor(playbooks, request, { embed, top: 5 })).toEqual([]);
  });

  it.each(PLAYBOOK_REQUESTS.filter(([request]) => SUBJECTLESS_REQUESTS.includes(request)))(
    'finds the playbook for "%s", which names no subject, only with embeddings',
    async (request, file) => {
      expect(rankPlaybooks(playbooks, request)).toEqual([]);
      const { embed } = conceptEmbedder();
      expect(files(await rankPlaybooksFor(playbooks, request, { embed }))).toEqual([file]);
    },
  );

  it('finds the playbook for a request that shares no word with it, only with embeddings', async () => {
    const request = 'Reasons for attrition';
    const drivers = playbooks.find((playbook) => playbook.file === 'churn-drivers.md');
    if (!drivers) throw new Error('churn-drivers.md is not shipped');
    const words = new Set(tokenize([drivers.title, drivers.tags.join(' '), drivers.when, drivers.body].join(' ')));
    expect(tokenize(request).filter((token) => words.has(token))).toEqual([]);

    expect(rankPlaybooks(playbooks, request)).toEqual([]);
    const { embed } = conceptEmbedder();
    expect(files(await rankPlaybooksFor(playbooks, request, { embed }))).toEqual(['churn-drivers.md']);
  });

  it('needs a cosine of 0.5 when no word matches', async () => {
    const request = 'Translate hello into German';
    expect(rankPlaybooks(playbooks, request, { minScore: 0 })).toEqual([]);
    /** Every playbook at [1, 0]; the request at the given cosine to them. */
    const at = (cosine: number) => async (texts: string[]) =>
      texts.map((text) => (text === request ? [cosine, Math.sqrt(1 - cosine * cosine)] : [1, 0]));
    expect(await rankPlaybooksFor(playbooks, request, { embed: at(0.45), top: 5 })).toEqual([]);
    const ranked = await rankPlaybooksFor(playbooks, request, { embed: at(0.55), top: 5 });
    expect(files(ranked)).toEqual(playbooks.map((playbook) => playbook.file).sort());
    for (const entry of ranked) expect(entry.score).toBeCloseTo(0.55);
  });

  it('with embeddings, still follows a playbook the request names by its file', async () => {
    const request =
      "What drives churn? Follow the playbook 'Churn driver analysis' (churn-drivers.md). Use the database telco_db.";
    /** Every playbook far from the request: only the file name can choose. */
    const far = async (texts: string[]) => texts.map((text) => (text === request ? [0, 1] : [1, 0]));
    expect(files(await rankPlaybooksFor(playbooks, request, { embed: far, top: 5 }))).toEqual(['churn-drivers.md']);
  });

  it('embeds each playbook once across calls, and the request every time', async () => {
    const { embed, calls } = conceptEmbedder();
    await rankPlaybooksFor(playbooks, 'Why do customers leave?', { embed });
    await rankPlaybooksFor(playbooks, 'Cluster the customers', { embed });
    await rankPlaybooksFor([...playbooks].reverse(), 'Reasons for attrition', { embed });
    expect(calls.map((texts) => texts.length)).toEqual([1 + playbooks.length, 1, 1]);
    expect(calls.map((texts) => texts[0])).toEqual([
      'Why do customers leave?',
      'Cluster the customers',
      'Reasons for attrition',
    ]);
    expect(calls[0]?.slice(1).map((text) => text.split('\n')[0])).toEqual(playbooks.map((playbook) => playbook.title));

    const other = conceptEmbedder();
    await rankPlaybooksFor(playbooks, 'Cluster the customers', { embed: other.embed });
    expect(other.calls[0]).toHaveLength(1 + playbooks.length);
  });

  it('falls back to BM25 and warns when embedding fails', async () => {
    const { lines, logger } = captureLogs();
    const failing = async (): Promise<number[][]> => {
      throw new LlmUnavailableError('http://model.internal/v1', 1, 'HTTP 500: down');
    };
    const request = 'Which factors drive churn, and can we predict it?';
    const ranked = await rankPlaybooksFor(playbooks, request, { embed: failing, logger, top: 3 });
    expect(ranked).toEqual(rankPlaybooks(playbooks, request, { top: 3 }));
    expect(ranked.length).toBeGreaterThan(1);
    const [line] = lines.map((text) => JSON.parse(text));
    expect(line).toMatchObject({ level: 40, msg: 'playbook embeddings failed; ranking by BM25' });
    expect(line.err.message).toContain('HTTP 500: down');
    expect(await rankPlaybooksFor(playbooks, 'Reasons for attrition', { embed: failing, logger })).toEqual([]);
  });

  it('falls back to BM25 on vectors it cannot use, and keeps none of them', async () => {
    const { lines, logger } = captureLogs();
    const tooFew = async (texts: string[]) => texts.slice(1).map(conceptVector);
    let calls = 0;
    /** The first answer gives the last playbook a vector of another length; later answers are good. */
    const badOnce = async (texts: string[]) =>
      texts.map((text, index) => (calls === 0 && index === texts.length - 1 ? [1] : conceptVector(text)));
    for (const embed of [tooFew, badOnce]) {
      const [best] = await rankPlaybooksFor(playbooks, 'Cluster the customers', { embed, logger });
      expect(best?.playbook.file).toBe('customer-segmentation.md');
    }
    expect(lines.map((line) => JSON.parse(line).err.message)).toEqual([
      `got ${playbooks.length} embedding(s) for ${playbooks.length + 1} text(s)`,
      'embeddings of different lengths',
    ]);
    calls++;
    const [best] = await rankPlaybooksFor(playbooks, 'Reasons for attrition', { embed: badOnce, logger });
    expect(best?.playbook.file).toBe('churn-drivers.md');
    expect(lines).toHaveLength(2);
  });

  it('falls back quietly when the turn is cancelled, passing the signal on', async () => {
    const { lines, logger } = captureLogs();
    const controller = new AbortController();
    let received: AbortSignal | undefined;
    const embed = async (_texts: string[], options?: { signal?: AbortSignal }) => {
      received = options?.signal;
      controller.abort();
      throw new Error('aborted');
    };
    const [best] = await rankPlaybooksFor(playbooks, 'Cluster the customers', {
      embed,
      logger,
      signal: controller.signal,
    });
    expect(received).toBe(controller.signal);
    expect(best?.playbook.file).toBe('customer-segmentation.md');
    expect(lines).toEqual([]);
  });
});
