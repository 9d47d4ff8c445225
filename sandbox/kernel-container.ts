/**
 * One Docker container of a kernel, with its channel: created on the kernel's folders, started,
 * stopped and removed. A kernel whose process dies gets a new one (see DockerKernel.recover).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import { KernelStartError, SandboxImageMissingError } from '../src/base/errors.js';
import type { Logger } from '../src/base/logger.js';
import { type ContainerSpecOptions, containerSpec } from './container-spec.js';
import { KernelChannel } from './kernel-channel.js';

export interface KernelContainerOptions {
  docker: Docker;
  spec: ContainerSpecOptions;
  /** Longest reply line accepted when a request names no limit of its own. */
  maxLineBytes: number;
  /** How long the driver may take to say "ready". */
  startTimeoutMs: number;
  /** Settles when the folders the container mounts exist: it is created and attached meanwhile, started after. */
  beforeStart?: Promise<unknown>;
  logger: Logger;
  /** Aborted when the kernel is disposed: creation stops, removes what it made and throws the reason. */
  signal: AbortSignal;
}

/** How a container's process ended. */
export interface ContainerEnd {
  exitCode?: number;
  /** Docker's flag: some process of this container was killed for memory. */
  oomKilled: boolean;
}

export class KernelContainer {
  private constructor(
    private readonly container: Docker.Container,
    readonly channel: KernelChannel,
    private readonly logger: Logger,
  ) {}

  /** Creates and starts a container, and waits for its driver to say "ready". */
  static async create(options: KernelContainerOptions): Promise<KernelContainer> {
    const { docker, signal, logger } = options;
    const container = await docker
      .createContainer(containerSpec(options.spec))
      .catch((error: { statusCode?: number; message?: string }) => {
        if (error.statusCode === 404) throw new SandboxImageMissingError(options.spec.image);
        throw new KernelStartError('engine', `creating its container failed (${error.message ?? error})`, {}, error);
      });
    try {
      signal.throwIfAborted();
      const channel = await KernelChannel.attach(container, {
        maxLineBytes: options.maxLineBytes,
        logger,
      });
      const closeChannel = () => channel.close('disposed');
      signal.addEventListener('abort', closeChannel, { once: true });
      try {
        await options.beforeStart;
        signal.throwIfAborted();
        await container.start().catch((error: { message?: string }) => {
          throw startRefused(error, options.spec.limits.memoryMb);
        });
        await ready(channel, options).catch(async (error: unknown) => {
          signal.throwIfAborted();
          throw await explainStartFailure(container, channel, options, error);
        });
      } finally {
        signal.removeEventListener('abort', closeChannel);
      }
      return new KernelContainer(container, channel, logger);
    } catch (error) {
      await container.remove({ force: true }).catch(() => {});
      throw error;
    }
  }

  get id(): string {
    return this.container.id;
  }

  async signal(name: 'SIGINT' | 'SIGKILL'): Promise<void> {
    await this.container.kill({ signal: name }).catch(() => {}); // not running: nothing to signal
  }

  /**
   * Kills what is left of the process and says how it ended. The engine learns of an out-of-memory kill from an event
   * of its own, which on a loaded machine can come after the exit: a SIGKILL (137) not yet flagged is looked at again
   * for a moment before it is told as a plain kill.
   */
  async stop(): Promise<ContainerEnd> {
    this.channel.close('restarting');
    await this.signal('SIGKILL');
    await this.container.wait().catch(() => {});
    let end = await this.end();
    for (let look = 0; look < OOM_LOOKS && end.exitCode === 137 && !end.oomKilled; look++) {
      await new Promise((resolve) => setTimeout(resolve, OOM_LOOK_MS));
      end = await this.end();
    }
    return end;
  }

  private async end(): Promise<ContainerEnd> {
    const state = await this.container.inspect().then(
      (info) => info.State,
      () => undefined,
    );
    return state === undefined ? { oomKilled: false } : { exitCode: state.ExitCode, oomKilled: state.OOMKilled };
  }

  /** Best effort: a container that is already gone is fine; other failures are logged. */
  async remove(): Promise<void> {
    this.channel.close('removed');
    await this.container.remove({ force: true }).catch((error: { statusCode?: number }) => {
      if (error.statusCode !== 404) this.logger.warn({ err: error }, 'could not remove kernel container');
    });
  }
}

/** How often, and how far apart, a SIGKILLed container is looked at again for the engine's out-of-memory flag. */
const OOM_LOOKS = 5;
const OOM_LOOK_MS = 200;

/**
 * gVisor's sandbox runs inside the container's memory limit: under a limit too small for it, it is killed (137)
 * while the engine starts it, and the engine reports the runtime's exit, not an out-of-memory container.
 */
const RUNTIME_KILLED = /runtime create failed: .*did not terminate successfully: exit status 137/;

function startRefused(error: { message?: string }, memoryMb: number): KernelStartError {
  const message = error.message ?? String(error);
  if (RUNTIME_KILLED.test(message)) {
    return new KernelStartError(
      'out_of_memory',
      `killed for memory with ${memoryMb} MiB (the container runtime itself, which runs inside that limit)`,
      {},
      error,
    );
  }
  return new KernelStartError('engine', `starting its container failed (${message})`, {}, error);
}

async function ready(channel: KernelChannel, options: KernelContainerOptions): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no "ready" within ${options.startTimeoutMs} ms`)),
      options.startTimeoutMs,
    );
  });
  try {
    await Promise.race([channel.ready, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Says truthfully why the driver never said "ready": the container is still running (the machine
 * was too busy), it was killed for memory, or the driver exited (the image).
 */
async function explainStartFailure(
  container: Docker.Container,
  channel: KernelChannel,
  options: KernelContainerOptions,
  error: unknown,
): Promise<KernelStartError> {
  const reason = error instanceof Error ? error.message : String(error);
  // The stream ends a moment before the engine sees the process gone: give it that moment.
  if (channel.isClosed) await Promise.race([container.wait().catch(() => {}), sleep(2000)]);
  const state = await container.inspect().then(
    (info) => info.State,
    () => undefined,
  );
  const details = { stderr: channel.stderr, image: options.spec.image, exitCode: state?.ExitCode };
  if (state === undefined || state.Running) return new KernelStartError('overloaded', reason, details, error);
  if (state.OOMKilled || state.ExitCode === 137) {
    return new KernelStartError(
      'out_of_memory',
      `killed for memory with ${options.spec.limits.memoryMb} MiB`,
      details,
      error,
    );
  }
  const said = channel.stderr.trim().split('\n').slice(-3).join(' | ');
  return new KernelStartError(
    'exited',
    `its driver exited with code ${state.ExitCode}${said ? `: ${said}` : ''}`,
    details,
    error,
  );
}
