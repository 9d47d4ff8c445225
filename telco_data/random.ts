/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) so the dataset is the same on every machine
 * and Node version: Math.random cannot be seeded, and its algorithm is not specified.
 */

/** Draws from one deterministic stream. */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with the given probability. */
  chance(probability: number): boolean;
  /** Standard normal (Box-Muller). */
  normal(): number;
  /** One of the keys, with probability proportional to its weight. */
  weighted<T extends string>(weights: Readonly<Record<T, number>>): T;
  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[];
}

function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/**
 * A stream for `seed`. `stream` names an independent sub-stream, so the split and the damage do not
 * change when the generator draws one number more or less.
 */
export function createRandom(seed: number, stream = ''): Random {
  let mixed = seed >>> 0;
  for (const character of stream) mixed = Math.imul(mixed ^ (character.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  const seeder = splitmix32(mixed);
  let a = seeder();
  let b = seeder();
  let c = seeder();
  let d = seeder();
  const next = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  // sfc32 needs a few rounds before its output is well mixed.
  for (let round = 0; round < 12; round++) next();

  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    normal: () => {
      const u = 1 - next();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
    },
    weighted<T extends string>(weights: Readonly<Record<T, number>>): T {
      const entries = Object.entries(weights) as [T, number][];
      const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
      let pick = next() * total;
      for (const [key, weight] of entries) {
        pick -= weight;
        if (pick < 0) return key;
      }
      const last = entries.at(-1);
      if (!last) throw new Error('weighted() needs at least one key');
      return last[0];
    },
    shuffle<T>(items: readonly T[]): T[] {
      const copy = [...items];
      for (let index = copy.length - 1; index > 0; index--) {
        const other = Math.floor(next() * (index + 1));
        [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
      }
      return copy;
    },
  };
}
