/**
 * The start of a session's kernel, through admission: a warm kernel when the pool has one, else a
 * new one once admission lets it start. A start that fails for a passing reason (a busy machine)
 * goes to the front of the line and tries again.
 */
import { KernelStartError } from '../src/base/errors.js';
import type { Logger } from '../src/base/logger.js';
import type { AcquireOptions } from '../src/ports/sandbox.js';
import type { DockerKernel } from './docker-kernel.js';
import type { KernelAdmission } from './kernel-admission.js';
import type { WarmPool } from './warm-pool.js';

export interface SessionKernelStartOptions {
  pool: WarmPool;
  admission: KernelAdmission;
  /** Starts a new kernel (its container labelled with this session). */
  startKernel: (sessionId: string) => Promise<DockerKernel>;
  /** Makes a kernel the session's, so it counts as live; done before the start slot is given back. */
  hand: (kernel: DockerKernel, sessionId: string) => DockerKernel;
  /** Tries per start when it fails for a passing reason. */
  attempts: number;
  /** Told how long each kernel start took and whether it worked (metrics). */
  onKernelStart?: (durationMs: number, ok: boolean) => void;
  logger: Logger;
}

export async function startSessionKernel(
  sessionId: string,
  acquire: AcquireOptions,
  options: SessionKernelStartOptions,
): Promise<DockerKernel> {
  const { pool, admission, hand } = options;
  for (let attempt = 1; ; attempt += 1) {
    const warm = pool.take();
    if (warm) return hand(warm, sessionId);
    const release = await admission.admit({
      ...(attempt === 1 && acquire.onQueued ? { onQueued: acquire.onQueued } : {}),
      front: attempt > 1,
    });
    const started = performance.now();
    try {
      const pooled = pool.take(); // it may have become ready while this waited
      if (pooled) return hand(pooled, sessionId);
      const kernel = hand(await options.startKernel(sessionId), sessionId);
      options.onKernelStart?.(performance.now() - started, true);
      return kernel;
    } catch (error) {
      options.onKernelStart?.(performance.now() - started, false);
      if (!(error instanceof KernelStartError && error.transient) || attempt >= options.attempts) throw error;
      options.logger.warn({ err: error, sessionId, attempt }, 'kernel start failed; trying again');
    } finally {
      release(); // after the kernel counts as live, so the cap never sees it twice or not at all
    }
  }
}
