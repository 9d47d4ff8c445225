/**
 * Everything `npm run bench` measures of our sandbox under one container runtime, against the raw pipe under the
 * same runtime: cold start, first import, warm acquire, concurrent starts, round trips, idle memory, extraction.
 */
import { type BenchSettings, BIG_OUTPUTS, COUNTS } from './bench-settings.js';
import type { ContainerMemory } from './container-memory.js';
import { measureKernelExtraction } from './kernel-extraction.js';
import { measureColdKernel, measureConcurrentStarts, measureWarmPool } from './measure-sandbox.js';
import { measureRawPipe } from './raw-pipe.js';
import type { Row } from './report.js';
import { type Summary, summarize } from './stats.js';

export interface RuntimeMeasures {
  runtime: string;
  metrics: Record<string, Summary>;
  /** p50 over p50, each; ratioLabels names them. */
  ratios: Record<string, number>;
  ratioLabels: Record<string, string>;
  rows: Row[];
  idleMemory: ContainerMemory;
  concurrentStarts: { sessions: number; startConcurrency: number; wallMs: number; startsPerMinute: number };
}

export const ratio = (numerator: Summary, denominator: Summary) =>
  Math.round((numerator.p50Ms / denominator.p50Ms) * 100) / 100;

export async function measureRuntime(
  settings: BenchSettings,
  extractionUrl: string,
  say: (message: string) => void,
): Promise<RuntimeMeasures> {
  const { runtime } = settings;
  say(`${runtime}: cold kernels, then round trips alternating with the raw pipe anchor`);
  const cold = await measureColdKernel(settings, (ours) => measureRawPipe(settings, ours));
  const raw = cold.measured;
  say(`${runtime}: warm pool`);
  const warm = await measureWarmPool(settings);
  say(`${runtime}: concurrent starts, ${COUNTS.concurrentSessions} sessions at once`);
  const concurrent = await measureConcurrentStarts(settings);
  say(`${runtime}: extraction of MariaDB 1M x 10 into the kernel`);
  const extraction = await measureKernelExtraction(settings, extractionUrl);

  const metrics: Record<string, Summary> = {
    coldStart: summarize(cold.coldStartMs),
    coldFirstImport: summarize([cold.firstImportMs]),
    coldFirstImportAfterPause: summarize([cold.firstImportAfterPauseMs]),
    warmAcquire: summarize(warm.acquireMs),
    warmAcquireFirstCell: summarize(warm.acquireFirstCellMs),
    concurrentStartFirstCell: summarize(concurrent.firstCellMs),
    trivialOurs: summarize(raw.oursTrivialMs),
    trivialRawPipe: summarize(raw.trivialMs),
    extract1m: summarize(extraction),
  };
  const ratios: Record<string, number> = {
    trivialOursOverRawPipe: ratio(metrics.trivialOurs as Summary, metrics.trivialRawPipe as Summary),
  };
  const ratioLabels: Record<string, string> = { trivialOursOverRawPipe: "trivial '1': ours / raw pipe" };
  const row = (label: string, key: string): Row => ({ label, summary: metrics[key] as Summary });
  const rows: Row[] = [
    row("cold session start (acquire -> first '1', pool 0)", 'coldStart'),
    row('cold kernel: first import of numpy, pandas, matplotlib.pyplot', 'coldFirstImport'),
    row(`the same, ${COUNTS.modelPauseMs / 1000} s after ready (after a model call)`, 'coldFirstImportAfterPause'),
    row('warm-pool acquire (pool 1)', 'warmAcquire'),
    row("warm-pool acquire + first '1'", 'warmAcquireFirstCell'),
    row(`concurrent starts: ${concurrent.sessions} at once, acquire -> first '1'`, 'concurrentStartFirstCell'),
    row("trivial '1': ours (Kernel.run)", 'trivialOurs'),
    row("trivial '1': raw pipe (anchor a)", 'trivialRawPipe'),
  ];
  for (const output of BIG_OUTPUTS) {
    const samples = raw.outputs[output.key];
    if (!samples) throw new Error(`no samples for the ${output.label}`);
    const ours = summarize(samples.oursMs);
    const rawPipe = summarize(samples.rawPipeMs);
    metrics[`${output.key}Ours`] = ours;
    metrics[`${output.key}RawPipe`] = rawPipe;
    ratios[`${output.key}OursOverRawPipe`] = ratio(ours, rawPipe);
    ratioLabels[`${output.key}OursOverRawPipe`] = `${output.label}: ours / raw pipe`;
    rows.push(
      { label: `${output.label}: ours (Kernel.run)`, summary: ours },
      { label: `${output.label}: raw pipe (anchor a)`, summary: rawPipe },
    );
  }
  rows.push(row('extraction, MariaDB 1M x 10 into the kernel', 'extract1m'));
  return {
    runtime,
    metrics,
    ratios,
    ratioLabels,
    rows,
    idleMemory: cold.idleMemory,
    concurrentStarts: {
      sessions: concurrent.sessions,
      startConcurrency: concurrent.startConcurrency,
      wallMs: Math.round(concurrent.wallMs),
      startsPerMinute: concurrent.startsPerMinute,
    },
  };
}
