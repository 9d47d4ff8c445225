/**
 * A run's tokens summed and said: prompt and completion, the share of prompt tokens after each
 * case's first request that sit in a repeated prefix (counted from the bytes sent), and the prompt
 * tokens the provider served from its cache, where it reported them.
 */
import type { CaseTokens } from './case-accounting.js';

/** The tokens of several cases together; the optional figures only when some case has them. */
export function sumTokens(all: readonly CaseTokens[]): CaseTokens {
  const total = (pick: (tokens: CaseTokens) => number | undefined) =>
    all.some((tokens) => pick(tokens) !== undefined)
      ? all.reduce((sum, tokens) => sum + (pick(tokens) ?? 0), 0)
      : undefined;
  const optional = {
    cached: total((tokens) => tokens.cached),
    afterFirst: total((tokens) => tokens.afterFirst),
    repeated: total((tokens) => tokens.repeated),
  };
  return {
    prompt: all.reduce((sum, tokens) => sum + tokens.prompt, 0),
    completion: all.reduce((sum, tokens) => sum + tokens.completion, 0),
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  };
}

/** The share (0-1) of prompt tokens after the first request that repeat a prefix; undefined before it was counted. */
export function repeatedPrefixShare(tokens: CaseTokens): number | undefined {
  if (tokens.afterFirst === undefined || tokens.repeated === undefined || tokens.afterFirst === 0) return undefined;
  return tokens.repeated / tokens.afterFirst;
}

/** `12,345 in (91% a repeated prefix, 10,240 cached) / 678 out`. */
export function describeTokens(tokens: CaseTokens): string {
  const share = repeatedPrefixShare(tokens);
  const notes = [
    ...(share === undefined ? [] : [`${Math.round(share * 100)}% a repeated prefix`]),
    ...(tokens.cached === undefined ? [] : [`${tokens.cached.toLocaleString('en')} cached`]),
  ];
  const prompt = `${tokens.prompt.toLocaleString('en')} in${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`;
  return `${prompt} / ${tokens.completion.toLocaleString('en')} out`;
}
