/**
 * Instruments for the extraction bench: a kernel wrapper that notes when the manifest is written
 * (every row read, every part written) so the run splits into stages, Node's live memory peak, and
 * a peak-RSS sampler.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Kernel } from '../src/ports/sandbox.js';

export interface StageProbe {
  /** The kernel to extract into: the real one, with its writes watched. */
  kernel: Kernel;
  /** Marks the start of a run. */
  reset(): void;
  /** From `reset()` to the manifest's write: reading, encoding and writing every part. */
  untilManifestSeconds(): number;
  /** The kernel's decoding of the last extract's complete folder, as if it had waited for the last row. */
  decodeAloneSeconds(): Promise<number>;
}

export function stageProbe(kernel: Kernel): StageProbe {
  let startedAt = performance.now();
  let manifestAt = Number.NaN;
  let folder = '';
  const watched = new Proxy(kernel, {
    get(target, key) {
      if (key === 'writeFile') {
        return (path: string, data: Uint8Array | string) => {
          if (path.endsWith('/manifest.json')) {
            manifestAt = performance.now();
            folder = path.slice(0, -'/manifest.json'.length);
          }
          return target.writeFile(path, data);
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    kernel: watched,
    reset() {
      startedAt = performance.now();
      manifestAt = Number.NaN;
    },
    untilManifestSeconds: () => (manifestAt - startedAt) / 1000,
    async decodeAloneSeconds() {
      const execution = await kernel.run(
        [
          'import time as _t',
          'from tally_extract import load_extract as _load',
          '_started = _t.perf_counter()',
          `_frame = _load(${JSON.stringify(`/inputs/${folder}`)})`,
          'print(_t.perf_counter() - _started)',
          'del _frame',
        ].join('\n'),
      );
      return Number(execution.stdout.trim());
    },
  };
}

/** The garbage collector, reachable without starting Node with --expose-gc. */
function collector(): () => void {
  setFlagsFromString('--expose_gc');
  return runInNewContext('gc') as () => void;
}

/**
 * Peak live memory (heap + array buffers after a full collection) while `task` runs: absolute, so
 * garbage of earlier work that is collected meanwhile cannot hide growth. Collecting every 25 ms
 * slows the task, so this pass is not timed.
 */
export async function livePeakMib(task: () => Promise<unknown>): Promise<number> {
  const gc = collector();
  const live = () => {
    gc();
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  };
  let peak = live();
  const sampler = setInterval(() => {
    peak = Math.max(peak, live());
  }, 25);
  try {
    await task();
  } finally {
    clearInterval(sampler);
  }
  return Math.round((Math.max(peak, live()) / 1024 ** 2) * 10) / 10;
}

/** The process's peak resident set size over the spans between start() and stop(), sampled every 10 ms. */
export function memorySampler() {
  let peak = 0;
  let timer: NodeJS.Timeout | undefined;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage.rss());
  };
  return {
    start() {
      sample();
      timer = setInterval(sample, 10);
    },
    stop() {
      clearInterval(timer);
      sample();
    },
    peakMib: () => Math.round((peak / 1024 ** 2) * 10) / 10,
  };
}
