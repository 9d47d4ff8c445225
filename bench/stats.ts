/** Latency samples and their summary: nearest-rank percentiles, the same for every metric. */

export interface Summary {
  samples: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
  minMs: number;
  maxMs: number;
}

/** Nearest-rank percentile of sorted values: the smallest value with at least `p` percent at or below it. */
function percentile(sorted: number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

export function summarize(samplesMs: number[]): Summary {
  if (samplesMs.length === 0) throw new Error('no samples to summarize');
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    samples: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    p95Ms: round(percentile(sorted, 95)),
    meanMs: round(sum / sorted.length),
    minMs: round(sorted[0] ?? Number.NaN),
    maxMs: round(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

/** Wall-clock milliseconds `task` took. */
export async function timed(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}

/**
 * Samples two tasks in alternating blocks, so both see the same machine: a drift in load or CPU
 * speed during the run lands on both sides instead of on whichever was measured later.
 */
export async function sampleInterleaved(
  first: () => Promise<unknown>,
  second: () => Promise<unknown>,
  { warmup, iterations, blocks = 10 }: { warmup: number; iterations: number; blocks?: number },
): Promise<[number[], number[]]> {
  for (let index = 0; index < warmup; index += 1) {
    await first();
    await second();
  }
  const a: number[] = [];
  const b: number[] = [];
  const perBlock = Math.ceil(iterations / blocks);
  while (a.length < iterations) {
    for (let index = 0; index < perBlock && a.length < iterations; index += 1) a.push(await timed(first));
    for (let index = 0; index < perBlock && b.length < iterations; index += 1) b.push(await timed(second));
  }
  return [a, b];
}
