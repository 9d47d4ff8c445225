/**
 * What every part of the extraction bench extracts with: the connectors' limits, raised so the largest
 * table fits, and a sandbox whose kernel holds a 10M-row frame.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DockerSandbox } from '../sandbox/docker-sandbox.js';
import type { Kernel } from '../src/ports/sandbox.js';
import type { BenchSettings } from './bench-settings.js';

export const EXTRACT_LIMITS = {
  queryTimeoutMs: 60_000,
  extractTimeoutMs: 900_000,
  extractMaxRows: 20_000_000,
  extractMaxBytes: 16 * 1024 ** 3,
};

export function startExtractSandbox(settings: BenchSettings): Promise<DockerSandbox> {
  return DockerSandbox.start({
    docker: settings.docker,
    image: settings.image,
    instance: `bench-extract-${settings.runtime}`,
    runtime: settings.runtime,
    workspaceRoot: join(tmpdir(), `tally-bench-extract-${settings.runtime}`),
    limits: { ...settings.limits, memoryMb: 8192 },
    poolSize: 0,
    idleTtlMs: 3_600_000,
    cellTimeoutMs: 900_000,
    outputLimitBytes: settings.outputLimitBytes,
    diskMb: 16_384,
    logger: settings.logger,
  });
}

/** Between measures: `settle` lets the kernel free a frame an extract replaced; `forget` drops a frame and its parts. */
export function kernelChores(kernel: Kernel) {
  return {
    // The kernel frees a frame an extract replaced after its reply: that must not overlap an anchor.
    settle: () => kernel.run('None'),
    forget: async (name: string) => {
      await kernel.run(`${name} = None\nimport gc; gc.collect()`);
      await kernel.removeInput('extracts'); // the parts of earlier runs would fill the disk quota
    },
  };
}
