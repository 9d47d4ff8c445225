/**
 * Our side of the comparison, through the public Sandbox and Kernel ports of DockerSandbox: cold
 * session start, warm-pool acquire, trivial and 1 MB cell round trips, and idle kernel memory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRELOAD } from '../sandbox/container-spec.js';
import type { DockerKernel } from '../sandbox/docker-kernel.js';
import { DockerSandbox } from '../sandbox/docker-sandbox.js';
import type { Kernel } from '../src/ports/sandbox.js';
import { type BenchSettings, BIG_OUTPUT, COUNTS } from './bench-settings.js';
import { type ContainerMemory, containerMemory } from './container-memory.js';

export interface ColdKernelSamples<T> {
  /** acquire() on an empty pool until the first cell '1' has returned. */
  coldStartMs: number[];
  idleMemory: ContainerMemory;
  /** What `withIdleKernel` measured with the last cold kernel. */
  measured: T;
}

export interface WarmPoolSamples {
  /** acquire() while the pool holds a ready kernel. */
  acquireMs: number[];
  /** The same acquire() plus the first cell '1'. */
  acquireFirstCellMs: number[];
}

/** Starts a DockerSandbox on a fresh temporary workspace root, runs `use`, and always closes it. */
async function withSandbox<T>(
  settings: BenchSettings,
  poolSize: number,
  use: (sandbox: DockerSandbox) => Promise<T>,
): Promise<T> {
  const workspaceRoot = await mkdtemp(join(tmpdir(), 'tally-bench-'));
  let sandbox: DockerSandbox | undefined;
  try {
    sandbox = await DockerSandbox.start({
      docker: settings.docker,
      image: settings.image,
      instance: settings.instance,
      workspaceRoot,
      limits: settings.limits,
      poolSize,
      idleTtlMs: 30 * 60_000,
      cellTimeoutMs: settings.cellTimeoutMs,
      outputLimitBytes: settings.outputLimitBytes,
      logger: settings.logger,
    });
    return await use(sandbox);
  } finally {
    await sandbox?.close();
    await rm(workspaceRoot, { recursive: true, force: true });
  }
}

async function runTrivial(kernel: Kernel): Promise<void> {
  const execution = await kernel.run('1');
  if (execution.error || execution.result?.text !== '1') {
    throw new Error(`cell '1' did not return 1: ${JSON.stringify(execution.error ?? execution.result)}`);
  }
}

async function runBigOutput(kernel: Kernel): Promise<void> {
  const execution = await kernel.run(BIG_OUTPUT.cell, { outputLimitBytes: BIG_OUTPUT.outputLimitBytes });
  if (execution.error || execution.stdout.length < BIG_OUTPUT.minBytes) {
    throw new Error(
      `the 1 MB cell returned ${execution.stdout.length} characters of stdout (error: ${execution.error?.name ?? 'none'})`,
    );
  }
}

/** A cold start only means something if the driver really imported the analysis stack before "ready". */
async function assertPreloaded(kernel: Kernel): Promise<void> {
  const execution = await kernel.run(`import sys\nall(name in sys.modules for name in ${JSON.stringify(PRELOAD)})`);
  if (execution.result?.text !== 'True') throw new Error(`the kernel had not preloaded ${PRELOAD.join(', ')}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Cold starts on an empty pool; the last kernel then sits idle for the memory reading and runs the round trips. */
export function measureColdKernel<T>(
  settings: BenchSettings,
  withIdleKernel: (round: { trivial: () => Promise<void>; bigOutput: () => Promise<void> }) => Promise<T>,
): Promise<ColdKernelSamples<T>> {
  return withSandbox(settings, 0, async (sandbox) => {
    const coldStartMs: number[] = [];
    let kernel: Kernel | undefined;
    for (let index = 0; index < COUNTS.coldStarts; index += 1) {
      await kernel?.dispose();
      const started = performance.now();
      kernel = await sandbox.acquire(`cold-${index}`);
      await runTrivial(kernel);
      coldStartMs.push(performance.now() - started);
    }
    if (kernel === undefined) throw new Error('no cold kernel was started');
    const idleKernel = kernel;
    await assertPreloaded(idleKernel);
    await sleep(COUNTS.idleSettleMs);
    const idleMemory = await containerMemory(settings.docker, (idleKernel as DockerKernel).containerId);
    const measured = await withIdleKernel({
      trivial: () => runTrivial(idleKernel),
      bigOutput: () => runBigOutput(idleKernel),
    });
    return { coldStartMs, idleMemory, measured };
  });
}

/** Acquires from a full pool of one, waiting for the pool to refill before each acquire. */
export function measureWarmPool(settings: BenchSettings): Promise<WarmPoolSamples> {
  return withSandbox(settings, 1, async (sandbox) => {
    const acquireMs: number[] = [];
    const acquireFirstCellMs: number[] = [];
    for (let index = 0; index < COUNTS.warmAcquires; index += 1) {
      await sandbox.warmPool.settled();
      if (sandbox.warmPool.available !== 1) throw new Error('the warm pool did not fill; see the log lines above');
      const started = performance.now();
      const kernel = await sandbox.acquire(`warm-${index}`);
      acquireMs.push(performance.now() - started);
      await runTrivial(kernel);
      acquireFirstCellMs.push(performance.now() - started);
      await kernel.dispose();
    }
    return { acquireMs, acquireFirstCellMs };
  });
}
