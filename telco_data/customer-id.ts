import type { Random } from './random.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The IBM id shape: four digits, a dash, five capital letters (`7590-VHVEG`). */
export const CUSTOMER_ID_PATTERN = /^\d{4}-[A-Z]{5}$/;

/**
 * Returns a function that draws ids of the IBM shape never drawn before and never in `taken`, so
 * fake customers added as damage cannot collide with real ones.
 */
export function createCustomerIdSource(random: Random, taken: Iterable<string> = []): () => string {
  const used = new Set(taken);
  return () => {
    for (;;) {
      let id = `${String(random.int(0, 9999)).padStart(4, '0')}-`;
      for (let index = 0; index < 5; index++) id += LETTERS[random.int(0, 25)];
      if (!used.has(id)) {
        used.add(id);
        return id;
      }
    }
  };
}
