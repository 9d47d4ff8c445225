/** What both stores share about their arguments: list items as JSON text, and range and TTL checks. */

export function serialiseItem(item: unknown): string {
  const text = JSON.stringify(item);
  if (text === undefined) throw new TypeError(`a list item must be JSON-serialisable, not ${typeof item}`);
  return text;
}

export function parseItem<T>(text: string): T {
  return JSON.parse(text) as T;
}

export function checkRange(from: number, limit: number | undefined): void {
  if (!(Number.isInteger(from) && from >= 0))
    throw new RangeError(`range 'from' must be a whole number >= 0, not ${from}`);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) {
    throw new RangeError(`range 'limit' must be a whole number >= 0, not ${limit}`);
  }
}

export function checkTtl(ttlMs: number | undefined): void {
  if (ttlMs !== undefined && !(Number.isInteger(ttlMs) && ttlMs > 0)) {
    throw new RangeError(`set 'ttlMs' must be a whole number of ms > 0 when given, not ${ttlMs}`);
  }
}
