/** What every part of the benchmark shares: the engine, the image, the limits and the sample counts. */
import Docker from 'dockerode';
import type { SandboxLimits } from '../sandbox/container-spec.js';
import { sandboxImageTag } from '../sandbox/image-tag.js';
import { loadConfig } from '../src/config.js';
import { createLogger, type Logger } from '../src/logger.js';

export interface BenchSettings {
  docker: Docker;
  image: string;
  /** Names the benchmark's containers; DockerSandbox.start reaps this instance's leftovers. */
  instance: string;
  /** The configured sandbox limits (the product defaults unless TALLY_SANDBOX_* says otherwise). */
  limits: SandboxLimits;
  cellTimeoutMs: number;
  outputLimitBytes: number;
  logger: Logger;
}

export const COUNTS = {
  coldStarts: 5,
  warmAcquires: 5,
  trivialWarmup: 50,
  trivialIterations: 1000,
  bigOutputWarmup: 3,
  bigOutputIterations: 30,
  /** How long the cold kernel sits idle after its first cell before its memory is read. */
  idleSettleMs: 3000,
} as const;

/** One million characters of output, as a cell (print) and as an expression (the raw pipe returns its repr). */
export const BIG_OUTPUT = {
  cell: "print('x'*1_000_000)",
  expression: "'x'*1_000_000",
  minBytes: 1_000_000,
  outputLimitBytes: 2_000_000,
} as const;

export function benchSettings(): BenchSettings {
  const config = loadConfig();
  const { sandbox } = config;
  return {
    docker: new Docker(config.docker),
    image: sandboxImageTag(),
    instance: 'bench',
    limits: { memoryMb: sandbox.memoryMb, cpus: sandbox.cpus, pidsLimit: sandbox.pidsLimit, tmpMb: sandbox.tmpMb },
    cellTimeoutMs: sandbox.cellTimeoutMs,
    outputLimitBytes: sandbox.outputLimitBytes,
    logger: createLogger({ level: 'warn' }),
  };
}
