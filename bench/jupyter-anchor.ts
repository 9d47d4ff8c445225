/**
 * Anchor b: a Jupyter kernel (ipykernel over ZeroMQ, driven by jupyter_client) in the same image.
 * Client and kernel both run inside one container and the timings are taken there, so this anchor
 * pays no Docker stream at all: it flatters Jupyter, which makes our ratio against it conservative.
 */
import { readFile } from 'node:fs/promises';
import { anchorSpec, withContainer } from './anchor-container.js';
import { type BenchSettings, BIG_OUTPUTS, COUNTS } from './bench-settings.js';

const SCRIPT_URL = new URL('./jupyter_round_trip.py', import.meta.url);
const RESULT_PREFIX = 'BENCH_RESULT ';
const RUN_TIMEOUT_MS = 900_000;
/** ipykernel holds a 100 MB output several times over (the text, its JSON, the message): room for it. */
const MEMORY_MB = 4096;

export interface JupyterSamples {
  /** start_new_kernel, the analysis imports, and the first '1'; no container start. */
  startToFirstCellMs: number;
  trivialMs: number[];
  /** Per large output (BigOutput.key). */
  outputsMs: Record<string, number[]>;
}

/** Splits a non-TTY container log (8-byte frame headers: stream, 0, 0, 0, big-endian length) by stream. */
function demultiplex(log: Buffer): { stdout: string; stderr: string } {
  const parts: Record<'stdout' | 'stderr', Buffer[]> = { stdout: [], stderr: [] };
  for (let offset = 0; offset + 8 <= log.length; ) {
    const length = log.readUInt32BE(offset + 4);
    const payload = log.subarray(offset + 8, offset + 8 + length);
    (log[offset] === 2 ? parts.stderr : parts.stdout).push(payload);
    offset += 8 + length;
  }
  return { stdout: Buffer.concat(parts.stdout).toString('utf8'), stderr: Buffer.concat(parts.stderr).toString('utf8') };
}

export async function measureJupyter(settings: BenchSettings): Promise<JupyterSamples> {
  const script = await readFile(SCRIPT_URL, 'utf8');
  const plan = {
    trivial: [COUNTS.trivialWarmup, COUNTS.trivialIterations],
    outputs: Object.fromEntries(
      BIG_OUTPUTS.map((output) => [
        output.key,
        { code: output.jupyterCell, minChars: output.minChars, warmup: output.warmup, iterations: output.iterations },
      ]),
    ),
  };
  const spec = anchorSpec(settings, {
    role: 'jupyter',
    cmd: ['python3', '-c', script, JSON.stringify(plan)],
    // The root filesystem is read-only and /tmp is the tmpfs: Jupyter keeps its files there.
    // PYDEVD_DISABLE_FILE_VALIDATION quiets debugpy's start-up warning about frozen modules.
    env: [
      'HOME=/tmp',
      'TMPDIR=/tmp',
      'JUPYTER_RUNTIME_DIR=/tmp/jr',
      'IPYTHONDIR=/tmp/ipy',
      'PYDEVD_DISABLE_FILE_VALIDATION=1',
    ],
    // The client shares the container with the kernel; our client (this process) has its own CPU.
    unlimitedCpu: true,
    memoryMb: MEMORY_MB,
  });
  return withContainer(settings.docker, spec, async (container) => {
    await container.start();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the Jupyter anchor ran past ${RUN_TIMEOUT_MS} ms`)), RUN_TIMEOUT_MS);
    });
    const exit = (await Promise.race([container.wait(), timedOut]).finally(() => clearTimeout(timer))) as {
      StatusCode: number;
    };
    const { stdout, stderr } = demultiplex(await container.logs({ stdout: true, stderr: true, follow: false }));
    const line = stdout
      .split('\n')
      .reverse()
      .find((candidate) => candidate.startsWith(RESULT_PREFIX));
    if (exit.StatusCode !== 0 || line === undefined) {
      throw new Error(`the Jupyter anchor exited with ${exit.StatusCode} and no result: ${stderr.trim().slice(-2000)}`);
    }
    return JSON.parse(line.slice(RESULT_PREFIX.length)) as JupyterSamples;
  });
}
