/** What a case's tokens cost: prompt tokens the provider served from its cache at the cached price, when it has one. */
import type { ModelPrice } from '../base/config-types.js';
import type { CaseTokens } from './case-accounting.js';

export function costOf(tokens: CaseTokens, price: ModelPrice): number {
  const cached = Math.min(tokens.cached ?? 0, tokens.prompt);
  const cachedPrice = price.cachedPromptPerMillion ?? price.promptPerMillion;
  return (
    ((tokens.prompt - cached) * price.promptPerMillion +
      cached * cachedPrice +
      tokens.completion * price.completionPerMillion) /
    1e6
  );
}
