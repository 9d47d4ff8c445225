/**
 * Containers for the anchors: the kernel's own hardened spec from sandbox/container-spec.ts with
 * another command, no workspace mount, and always removed afterwards.
 */
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { ContainerCreateOptions } from 'dockerode';
import { containerSpec } from '../sandbox/container-spec.js';
import type { BenchSettings } from './bench-settings.js';

export interface AnchorOptions {
  /** Short name for the container, e.g. `raw-pipe`. */
  role: string;
  cmd: string[];
  /** Replaces the spec's environment (the image's own ENV still applies underneath). */
  env?: string[];
  /** Lifts the CPU quota, for an anchor whose client runs inside the container too. */
  unlimitedCpu?: boolean;
  /** Replaces the memory limit, in MiB. */
  memoryMb?: number;
}

export function anchorSpec(settings: BenchSettings, options: AnchorOptions): ContainerCreateOptions {
  const id = randomBytes(4).toString('hex');
  const spec = containerSpec({
    image: settings.image,
    name: `tally-${settings.instance}-${options.role}-${id}`,
    instance: settings.instance,
    kernelId: `${options.role}-${id}`,
    sessionId: 'anchor',
    workHostPath: '/nonexistent', // the Binds are dropped below: anchors need no workspace
    inputsHostPath: '/nonexistent',
    outboxHostPath: '/nonexistent',
    limits: settings.limits,
    runtime: settings.runtime,
  });
  return {
    ...spec,
    Cmd: options.cmd,
    ...(options.env === undefined ? {} : { Env: options.env }),
    HostConfig: {
      ...spec.HostConfig,
      // Kernels log nothing (their stdout is the protocol); anchors report their numbers through logs.
      LogConfig: { Type: 'json-file', Config: {} },
      Binds: [],
      ...(options.unlimitedCpu ? { NanoCpus: 0 } : {}),
      ...(options.memoryMb === undefined
        ? {}
        : { Memory: options.memoryMb * 1024 * 1024, MemorySwap: options.memoryMb * 1024 * 1024 }),
    },
  };
}

/** Creates the container, hands it to `use`, and removes it whatever happens. */
export async function withContainer<T>(
  docker: Docker,
  spec: ContainerCreateOptions,
  use: (container: Docker.Container) => Promise<T>,
): Promise<T> {
  const container = await docker.createContainer(spec);
  try {
    return await use(container);
  } finally {
    await container.remove({ force: true }).catch(() => {});
  }
}
