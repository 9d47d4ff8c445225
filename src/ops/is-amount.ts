/**
 * The one check every figure passes before it reaches a counter or histogram: metrics never throw into
 * the product, so a negative or non-finite figure from a caller is dropped rather than failing the turn
 * that reported it.
 */

/** A figure a counter or histogram can take: finite and not negative. */
export function isAmount(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}
