/**
 * The Docker sandbox of a tally, started from the config: its engine (DOCKER_HOST), image, limits, warm pool and
 * admission, with its kernel starts and cells counted for the metrics.
 */
import { join } from 'node:path';
import Docker from 'dockerode';
import { DockerSandbox } from '../../sandbox/docker-sandbox.js';
import { sandboxImageTag } from '../../sandbox/image-tag.js';
import type { Config } from '../base/config.js';
import type { Logger } from '../base/logger.js';
import { type Metrics, NO_METRICS } from '../ports/metrics.js';

export function createSandbox(
  config: Config,
  logger: Logger,
  metrics: Metrics = NO_METRICS,
  onCell: (durationMs: number) => void = () => {},
): Promise<DockerSandbox> {
  return DockerSandbox.start({
    docker: new Docker(config.docker),
    image: config.sandbox.image ?? sandboxImageTag(),
    instance: config.instance,
    workspaceRoot: join(config.home, 'workspaces', config.instance),
    limits: config.sandbox,
    runtime: config.sandbox.runtime,
    poolSize: config.sandbox.poolSize,
    poolMax: config.sandbox.poolMax,
    maxKernels: config.sandbox.maxKernels,
    maxConcurrentStarts: config.sandbox.startConcurrency,
    diskMb: config.sandbox.diskMb,
    onKernelStart: (durationMs, ok) => metrics.kernelStarted(durationMs, ok),
    onCell: (durationMs) => {
      metrics.cellRan(durationMs);
      onCell(durationMs);
    },
    idleTtlMs: config.sandbox.idleTtlMs,
    cellTimeoutMs: config.sandbox.cellTimeoutMs,
    outputLimitBytes: config.sandbox.outputLimitBytes,
    logger: logger.child({ component: 'sandbox' }),
  });
}
