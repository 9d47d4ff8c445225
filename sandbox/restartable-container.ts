/**
 * A kernel's container across restarts: the first one is created while the kernel's folders are
 * being made and started once they exist; a restart puts a fresh one on the same folders in its
 * place. Closing it stops a container still being created and removes the current one.
 */
import type Docker from 'dockerode';
import type { Logger } from '../src/base/logger.js';
import type { SandboxLimits } from './container-spec.js';
import type { KernelChannel } from './kernel-channel.js';
import { type ContainerEnd, KernelContainer } from './kernel-container.js';
import { maxReplyBytes, timerMs } from './kernel-limits.js';
import type { Workspace } from './workspace.js';

export interface RestartableContainerOptions {
  docker: Docker;
  image: string;
  instance: string;
  kernelId: string;
  /** The kernel's folders; the first container is created while they are being made, and started once they exist. */
  workspace: Workspace;
  limits: SandboxLimits;
  /** The container runtime (`runsc`, `runc`, …), resolved by the sandbox. */
  runtime?: string;
  /** Import the analysis stack before the first container says "ready" (warm-pool kernels). Default false. */
  preload?: boolean;
  /** Default per-stream output cap. */
  outputLimitBytes: number;
  /** How long the driver may take to say "ready". Default 60000. */
  startTimeoutMs?: number;
  logger: Logger;
}

export class RestartableContainer {
  /** The current container; a restart replaces it with a fresh one on the same folders. */
  private container: KernelContainer | undefined;
  private creating: Promise<KernelContainer> | undefined;
  /** Aborted by close(), so a container being created is not left behind. */
  private readonly closing = new AbortController();
  /** Only the first container preloads: a restart replays the journal, which imports what it used. */
  private preloadNext: boolean;

  constructor(private readonly options: RestartableContainerOptions) {
    this.preloadNext = options.preload ?? false;
  }

  /** The current container's id; it changes when the kernel is restarted. */
  get id(): string {
    return this.container?.id ?? '';
  }

  get channel(): KernelChannel | undefined {
    return this.container?.channel;
  }

  async signal(name: 'SIGINT' | 'SIGKILL'): Promise<void> {
    await this.container?.signal(name);
  }

  /** Creates a container on the kernel's folders (labelled with the session it serves) and starts it. */
  async start(sessionId: string): Promise<void> {
    const { docker, image, instance, kernelId, workspace, limits, logger } = this.options;
    const creating = KernelContainer.create({
      docker,
      spec: {
        image,
        name: `tally-${instance}-${kernelId}`,
        instance,
        kernelId,
        sessionId,
        workHostPath: workspace.workPath,
        inputsHostPath: workspace.inputsPath,
        outboxHostPath: workspace.outboxPath,
        preload: this.preloadNext,
        limits,
        ...(this.options.runtime ? { runtime: this.options.runtime } : {}),
      },
      beforeStart: workspace.ready,
      maxLineBytes: maxReplyBytes(this.options.outputLimitBytes),
      startTimeoutMs: timerMs(this.options.startTimeoutMs ?? 60_000),
      logger,
      signal: this.closing.signal,
    });
    this.preloadNext = false;
    this.creating = creating;
    this.container = await creating;
  }

  /**
   * Stops the container and starts a fresh one on the same folders, and says how the old one
   * ended. A fresh container, not a restarted one: Docker's OOMKilled flag covers a container's
   * whole life, so after one out-of-memory kill every later death would look like another.
   */
  async replace(sessionId: string): Promise<ContainerEnd> {
    const old = this.container;
    const ended = (await old?.stop()) ?? { oomKilled: false };
    await old?.remove();
    this.closing.signal.throwIfAborted();
    await this.start(sessionId);
    return ended;
  }

  /** Best effort: `reason` is what a container still being created throws; it stops early, removing what it made. */
  async close(reason: Error): Promise<void> {
    this.closing.abort(reason);
    await this.creating?.catch(() => {});
    await this.container?.remove();
  }
}
