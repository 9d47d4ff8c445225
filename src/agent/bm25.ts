/**
 * Okapi BM25 over a handful of short documents (the playbooks), with a tokenizer that folds the
 * word forms analysts use for the same idea: "segments", "segmentation" and "segment" all count.
 */

/** Words too common in requests to tell documents apart. Kept short: "why" and "how" carry meaning. */
const STOP_WORDS = new Set(
  (
    'a about after all also an and any are as at be been but by can could do does did for from had has have i ' +
    'if in into is it its me my of on or our please s should so some t than that the their them then there ' +
    'these they this those to us was we were what when where which who whom will with would you your'
  ).split(' '),
);

/** Strips one suffix when at least `keep` letters remain. */
function strip(word: string, suffix: string, keep: number, replacement = ''): string | undefined {
  if (!word.endsWith(suffix) || word.length - suffix.length < keep) return undefined;
  return word.slice(0, word.length - suffix.length) + replacement;
}

/**
 * A light, conservative stemmer (a few Porter-like steps, not Porter): plurals, then one of
 * -ation/-tion/-ing/-ed/-ive/-ly, then -er, -ency/-ance, and a final -e. It only has to map related
 * forms to the same stem; the stems need not be words.
 */
export function stem(word: string): string {
  let stemmed = word;
  if (stemmed.length > 3) {
    stemmed =
      strip(stemmed, 'ies', 2, 'y') ??
      strip(stemmed, 'sses', 2, 'ss') ??
      (/(x|ch|sh)es$/.test(stemmed) ? strip(stemmed, 'es', 3) : undefined) ??
      (/[^sui]s$/.test(stemmed) ? strip(stemmed, 's', 3) : undefined) ??
      stemmed;
  }
  stemmed =
    strip(stemmed, 'ation', 4) ??
    (/tion$/.test(stemmed) ? strip(stemmed, 'ion', 4) : undefined) ??
    strip(stemmed, 'ing', 4) ??
    strip(stemmed, 'ed', 4) ??
    strip(stemmed, 'ive', 4) ??
    strip(stemmed, 'ly', 5) ??
    stemmed;
  stemmed = strip(stemmed, 'er', 4) ?? stemmed;
  stemmed = strip(stemmed, 'ency', 4, 'ent') ?? strip(stemmed, 'ence', 4, 'ent') ?? stemmed;
  stemmed = strip(stemmed, 'ancy', 4, 'ant') ?? strip(stemmed, 'ance', 4, 'ant') ?? stemmed;
  return strip(stemmed, 'e', 4) ?? stemmed;
}

/** Lower-cases, splits on anything but letters and digits, drops stop words, stems. */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '' && !STOP_WORDS.has(word))
    .map(stem);
}

export interface Bm25Options {
  /** Term-frequency saturation. Default 1.2. */
  k1?: number;
  /** Length normalisation, 0 (none) to 1 (full). Default 0.75. */
  b?: number;
}

/** Scores every document for the query; documents are given as token lists, scores come back in the same order. */
export function bm25Scores(documents: string[][], query: string[], options: Bm25Options = {}): number[] {
  const { k1 = 1.2, b = 0.75 } = options;
  const frequencies = documents.map((tokens) => {
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    return counts;
  });
  const averageLength = documents.reduce((sum, tokens) => sum + tokens.length, 0) / Math.max(documents.length, 1);
  const terms = [...new Set(query)];
  const idf = new Map(
    terms.map((term) => {
      const containing = frequencies.filter((counts) => counts.has(term)).length;
      return [term, Math.log(1 + (documents.length - containing + 0.5) / (containing + 0.5))];
    }),
  );
  return documents.map((tokens, index) => {
    const counts = frequencies[index] ?? new Map<string, number>();
    const norm = k1 * (1 - b + (b * tokens.length) / (averageLength || 1));
    let score = 0;
    for (const term of terms) {
      const frequency = counts.get(term) ?? 0;
      if (frequency > 0) score += ((idf.get(term) ?? 0) * frequency * (k1 + 1)) / (frequency + norm);
    }
    return score;
  });
}
