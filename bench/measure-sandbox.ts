/**
 * Our side of the comparison, through the public Sandbox and Kernel ports of DockerSandbox: cold
 * session start, the first import of the analysis stack, warm-pool acquire, concurrent starts,
 * trivial and large-output round trips, and idle kernel memory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRELOAD } from '../sandbox/container-spec.js';
import type { DockerKernel } from '../sandbox/docker-kernel.js';
import { DockerSandbox } from '../sandbox/docker-sandbox.js';
import type { Kernel } from '../src/ports/sandbox.js';
import { type BenchSettings, type BigOutput, COUNTS } from './bench-settings.js';
import { type ContainerMemory, containerMemory } from './container-memory.js';

export interface ColdKernelSamples<T> {
  /** acquire() on an empty pool until the first cell '1' has returned. */
  coldStartMs: number[];
  /** The cold kernel's first `import numpy, pandas, matplotlib.pyplot` (it imports on first use). */
  firstImportMs: number;
  /** The same import in another cold kernel, COUNTS.modelPauseMs after it was ready (its background import had time). */
  firstImportAfterPauseMs: number;
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

export interface ConcurrentStarts {
  sessions: number;
  /** The start limit the sandbox ran with (TALLY_SANDBOX_START_CONCURRENCY). */
  startConcurrency: number;
  /** Each session's acquire() until its first cell '1' returned, all asked for at once. */
  firstCellMs: number[];
  /** From the first acquire() to the last first cell. */
  wallMs: number;
  startsPerMinute: number;
}

/** Our round trips, to interleave with the raw pipe's. */
export interface OurRoundTrips {
  trivial: () => Promise<void>;
  output: (output: BigOutput) => Promise<void>;
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
      runtime: settings.runtime,
      workspaceRoot,
      limits: settings.limits,
      poolSize,
      maxConcurrentStarts: settings.startConcurrency,
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

async function runOutput(kernel: Kernel, output: BigOutput): Promise<void> {
  const execution = await kernel.run(output.cell, { outputLimitBytes: output.outputLimitBytes, journal: false });
  if (execution.error || execution.stdout.length < output.minChars) {
    throw new Error(
      `the ${output.label} cell returned ${execution.stdout.length} characters of stdout (error: ${execution.error?.name ?? 'none'})`,
    );
  }
}

const IMPORT_STACK = `import ${PRELOAD.join(', ')}`;
const STACK_IMPORTED = `import sys\nall(name in sys.modules for name in ${JSON.stringify(PRELOAD)})`;

/** Asserts that the analysis stack is imported in the kernel (a warm kernel's preload, or a cell's import). */
async function assertStack(kernel: Kernel, what: string): Promise<void> {
  const execution = await kernel.run(STACK_IMPORTED);
  if (execution.result?.text !== 'True') throw new Error(`${what}: ${PRELOAD.join(', ')} were not imported`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Cold starts on an empty pool; the last kernel then imports the analysis stack, sits idle for the
 * memory reading, and runs the round trips.
 */
export function measureColdKernel<T>(
  settings: BenchSettings,
  withIdleKernel: (ours: OurRoundTrips) => Promise<T>,
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
    const importStarted = performance.now();
    const imported = await idleKernel.run(IMPORT_STACK);
    const firstImportMs = performance.now() - importStarted;
    if (imported.error) throw new Error(`${IMPORT_STACK} failed: ${imported.error.value}`);
    await assertStack(idleKernel, 'the cold kernel after its import');
    const paused = await sandbox.acquire('cold-paused');
    await runTrivial(paused);
    await sleep(COUNTS.modelPauseMs);
    const pausedStarted = performance.now();
    const pausedImport = await paused.run(IMPORT_STACK);
    const firstImportAfterPauseMs = performance.now() - pausedStarted;
    if (pausedImport.error) throw new Error(`${IMPORT_STACK} failed: ${pausedImport.error.value}`);
    await paused.dispose();
    await sleep(COUNTS.idleSettleMs);
    const idleMemory = await containerMemory(settings.docker, (idleKernel as DockerKernel).containerId);
    const measured = await withIdleKernel({
      trivial: () => runTrivial(idleKernel),
      output: (output) => runOutput(idleKernel, output),
    });
    return { coldStartMs, firstImportMs, firstImportAfterPauseMs, idleMemory, measured };
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
      if (index === 0) await assertStack(kernel, 'a warm-pool kernel');
      await kernel.dispose();
    }
    return { acquireMs, acquireFirstCellMs };
  });
}

/**
 * Sessions that all ask for a kernel at once on an empty pool: the start queue lets
 * `startConcurrency` start at a time. Kernel starts per minute is sessions over the wall time.
 */
export function measureConcurrentStarts(settings: BenchSettings): Promise<ConcurrentStarts> {
  return withSandbox(settings, 0, async (sandbox) => {
    const sessions = COUNTS.concurrentSessions;
    const started = performance.now();
    const firstCellMs = await Promise.all(
      Array.from({ length: sessions }, async (_, index) => {
        const kernel = await sandbox.acquire(`burst-${index}`);
        await runTrivial(kernel);
        return performance.now() - started;
      }),
    );
    const wallMs = Math.max(...firstCellMs);
    return {
      sessions,
      startConcurrency: settings.startConcurrency,
      firstCellMs,
      wallMs,
      startsPerMinute: Math.round((sessions / wallMs) * 60_000),
    };
  });
}
