/** What every part of the benchmark shares: the engine, the image, the limits and the sample counts. */
import Docker from 'dockerode';
import type { SandboxLimits } from '../sandbox/container-spec.js';
import { sandboxImageTag } from '../sandbox/image-tag.js';
import { loadConfig } from '../src/base/config.js';
import { createLogger, type Logger } from '../src/base/logger.js';

export interface BenchSettings {
  docker: Docker;
  image: string;
  /** Names the benchmark's containers; DockerSandbox.start reaps this instance's leftovers. */
  instance: string;
  /** The container runtime kernels and anchors run under (`runc`, `runsc`): each is measured in turn. */
  runtime: string;
  /** The configured sandbox limits (the product defaults unless TALLY_SANDBOX_* says otherwise). */
  limits: SandboxLimits;
  cellTimeoutMs: number;
  outputLimitBytes: number;
  /** Kernel starts at once (TALLY_SANDBOX_START_CONCURRENCY, the product's default otherwise). */
  startConcurrency: number;
  logger: Logger;
}

export const COUNTS = {
  coldStarts: 5,
  warmAcquires: 5,
  trivialWarmup: 50,
  trivialIterations: 1000,
  /** How long the cold kernel sits idle after its first cell before its memory is read. */
  idleSettleMs: 3000,
  /** A session's first cell comes after the model's first call: about this long after the kernel is ready. */
  modelPauseMs: 2000,
  /** Sessions that ask for a kernel at once, on an empty pool, to count kernel starts per minute. */
  concurrentSessions: 8,
} as const;

/** A large output, measured on our kernel, the raw pipe and Jupyter alike. */
export interface BigOutput {
  /** Names its metrics (`${key}Ours`, `${key}RawPipe`, `${key}Jupyter`) and ratios. */
  key: string;
  label: string;
  /** Our cell, with the output limit below. */
  cell: string;
  outputLimitBytes: number;
  /** What the raw pipe evaluates: its repr is the same number of characters as what reaches us. */
  expression: string;
  /** Jupyter's cell: Jupyter has no cap, so it prints only what reaches us (which favours it). */
  jupyterCell: string;
  /** Characters of stdout each side must return, at the least. */
  minChars: number;
  warmup: number;
  iterations: number;
}

export const BIG_OUTPUTS: readonly BigOutput[] = [
  {
    key: 'bigOutput',
    label: '1 MB output',
    cell: "print('x'*1_000_000)",
    outputLimitBytes: 2_000_000,
    expression: "'x'*1_000_000",
    jupyterCell: "print('x'*1_000_000)",
    minChars: 1_000_000,
    warmup: 3,
    iterations: 30,
  },
  {
    key: 'output10Mb',
    label: '10 MB output',
    cell: "print('x'*10_000_000)",
    outputLimitBytes: 20_000_000,
    expression: "'x'*10_000_000",
    jupyterCell: "print('x'*10_000_000)",
    minChars: 10_000_000,
    warmup: 1,
    iterations: 10,
  },
  {
    // 150 MB printed, cut at the 100 MB cap: the head and the tail arrive, with a marker between.
    key: 'output100MbCapped',
    label: '100 MB-capped output (150 MB printed)',
    cell: "print('x'*150_000_000)",
    outputLimitBytes: 100_000_000,
    expression: "'x'*100_000_000",
    jupyterCell: "print('x'*100_000_000)",
    minChars: 100_000_000,
    warmup: 1,
    iterations: 5,
  },
];

/** The runtimes `npm run bench` measures side by side: the host's kernel, and gVisor's (setup registers it). */
export const BENCH_RUNTIMES = ['runc', 'runsc'] as const;

/** The settings for one runtime, on an instance of its own so one runtime's start-up never reaps the other's. */
export function underRuntime(settings: BenchSettings, runtime: string): BenchSettings {
  return { ...settings, runtime, instance: `${settings.instance}-${runtime}` };
}

export function benchSettings(): BenchSettings {
  const config = loadConfig();
  const { sandbox } = config;
  return {
    docker: new Docker(config.docker),
    image: sandboxImageTag(),
    instance: 'bench',
    runtime: 'runc',
    limits: { memoryMb: sandbox.memoryMb, cpus: sandbox.cpus, pidsLimit: sandbox.pidsLimit, tmpMb: sandbox.tmpMb },
    cellTimeoutMs: sandbox.cellTimeoutMs,
    outputLimitBytes: sandbox.outputLimitBytes,
    startConcurrency: sandbox.startConcurrency,
    logger: createLogger({ level: 'warn' }),
  };
}
