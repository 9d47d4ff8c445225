/**
 * A session's kernel: one hardened container running the Python driver, spoken to over its
 * attached stream. Cells run one at a time; a timeout interrupts the cell and keeps the state;
 * a dead or unresponsive kernel is restarted and its journal of successful cells replayed.
 */
import type Docker from 'dockerode';
import { KernelClosedError } from '../src/base/errors.js';
import type { Logger } from '../src/base/logger.js';
import type {
  Execution,
  ExecutionError,
  Kernel,
  KernelRestart,
  ReadFileOptions,
  RunOptions,
} from '../src/ports/sandbox.js';
import { awaitReply, type ReplyOutcome } from './await-reply.js';
import type { SandboxLimits } from './container-spec.js';
import { hostFailure, succeeded, toExecution } from './execution.js';
import { explainDiskFull } from './explain-disk-full.js';
import { CANCELLED, deathError, timeoutError, unresponsiveError } from './host-failures.js';
import { ChannelClosedError, type KernelChannel } from './kernel-channel.js';
import { type ContainerEnd, KernelContainer } from './kernel-container.js';
import { maxReplyBytes, timerMs } from './kernel-limits.js';
import { resolveAttachment } from './reply-attachment.js';
import type { Workspace } from './workspace.js';

export interface DockerKernelOptions {
  docker: Docker;
  image: string;
  instance: string;
  kernelId: string;
  sessionId: string;
  /** The kernel's folders; the first container is created while they are being made, and started once they exist. */
  workspace: Workspace;
  limits: SandboxLimits;
  /** The container runtime (`runsc`, `runc`, …), resolved by the sandbox. */
  runtime?: string;
  /** Import the analysis stack before the first container says "ready" (warm-pool kernels). Default false. */
  preload?: boolean;
  /** Default per-cell wall-clock limit. */
  cellTimeoutMs: number;
  /** Default per-stream output cap. */
  outputLimitBytes: number;
  /** How long an interrupted cell may take to stop before the kernel is killed. Default 2000. */
  interruptGraceMs?: number;
  /** How long the driver may take to say "ready". Default 60000. */
  startTimeoutMs?: number;
  logger: Logger;
  /** Called once the kernel is disposed, so its owner forgets it. */
  onDispose?: (kernel: DockerKernel) => void;
  /** Told how long each cell ran (metrics). */
  onCell?: (durationMs: number) => void;
}

interface JournalEntry {
  code: string;
  timeoutMs: number;
}

const REPLAY_OUTPUT_LIMIT = 1024;

export class DockerKernel implements Kernel {
  lastActiveAt = Date.now();
  /** Cells that succeeded, each with the time limit it ran under, replayed after a restart. */
  private readonly journal: JournalEntry[] = [];
  private tail: Promise<unknown> = Promise.resolve();
  private disposed = false;
  private disposal: Promise<void> | undefined;
  private running = false;
  private queued = 0;
  private holds = 0;
  private session: string;

  /** The current container; recovery replaces it with a fresh one on the same folders. */
  private container: KernelContainer | undefined;
  private creating: Promise<KernelContainer> | undefined;
  /** Aborted by dispose(), so a container being created is not left behind. */
  private readonly closing = new AbortController();
  /** Only the first container preloads: a restart replays the journal, which imports what it used. */
  private preloadNext: boolean;

  private constructor(private readonly options: DockerKernelOptions) {
    this.session = options.sessionId;
    this.preloadNext = options.preload ?? false;
  }

  static async start(options: DockerKernelOptions): Promise<DockerKernel> {
    const kernel = new DockerKernel(options);
    try {
      await kernel.startContainer();
    } catch (error) {
      await kernel.dispose();
      throw error;
    }
    return kernel;
  }

  get sessionId(): string {
    return this.session;
  }

  /** The current container's id; it changes when the kernel is restarted. */
  get containerId(): string {
    return this.container?.id ?? '';
  }

  get workspacePath(): string {
    return this.options.workspace.hostPath;
  }

  /** True while a cell or a restart runs or waits its turn; the idle sweep leaves busy kernels alone. */
  get isBusy(): boolean {
    return this.queued > 0;
  }

  /** True while a turn holds the kernel (see hold()); held kernels are never parked. */
  get isHeld(): boolean {
    return this.holds > 0;
  }

  hold(): () => void {
    this.holds += 1;
    this.touch();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      this.touch();
    };
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Hands a warm-pool kernel to a session. */
  adopt(sessionId: string): void {
    this.session = sessionId;
    this.touch();
  }

  /** Marks the kernel as used now, so the idle sweep does not take it from a session that just asked for it. */
  touch(): void {
    this.lastActiveAt = Date.now();
  }

  run(code: string, options: RunOptions = {}): Promise<Execution> {
    return this.busyWhile(() => this.execute(code, options));
  }

  restart(): Promise<KernelRestart> {
    return this.busyWhile(() => this.recover('requested'));
  }

  async interrupt(): Promise<void> {
    if (this.running) await this.container?.signal('SIGINT');
  }

  writeFile(path: string, data: Uint8Array | string): Promise<void> {
    this.assertOpen();
    return this.options.workspace.writeInput(path, data);
  }

  removeInput(path: string): Promise<void> {
    this.assertOpen();
    return this.options.workspace.removeInput(path);
  }

  readFile(path: string, options: ReadFileOptions = {}): Promise<Buffer> {
    this.assertOpen();
    return this.options.workspace.readWork(path, options.maxBytes);
  }

  /** Idempotent; every caller gets the same promise, so none goes on while the container remains. */
  dispose(): Promise<void> {
    this.disposal ??= this.removeEverything();
    return this.disposal;
  }

  private async removeEverything(): Promise<void> {
    this.disposed = true;
    this.closing.abort(new KernelClosedError(this.session));
    // Best effort throughout: disposal runs from timers and shutdown, where a throw would take the process down.
    await this.creating?.catch(() => {}); // stops early, removing what it made
    await this.container?.remove();
    await this.options.workspace.remove().catch((error: unknown) => {
      this.options.logger.error({ err: error, path: this.workspacePath }, 'could not remove kernel workspace');
    });
    this.options.onDispose?.(this);
  }

  /** Runs a task in turn (one at a time), counting the kernel busy from now until it ends. */
  private busyWhile<T>(task: () => Promise<T>): Promise<T> {
    this.queued += 1;
    return this.serialize(task).finally(() => {
      this.queued -= 1;
      this.touch();
    });
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => {});
    return result;
  }

  private assertOpen(): void {
    if (this.disposed) throw new KernelClosedError(this.session);
  }

  private get channel(): KernelChannel | undefined {
    return this.container?.channel;
  }

  /** Creates a container on the kernel's folders (labelled with the current session) and starts it. */
  private async startContainer(): Promise<void> {
    const { docker, image, instance, kernelId, workspace, limits, logger } = this.options;
    const creating = KernelContainer.create({
      docker,
      spec: {
        image,
        name: `tally-${instance}-${kernelId}`,
        instance,
        kernelId,
        sessionId: this.session,
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

  private async execute(code: string, options: RunOptions): Promise<Execution> {
    this.assertOpen();
    // Cancelled before its turn came: never sent, so nothing ran and nothing is journaled.
    if (options.signal?.aborted) return hostFailure(CANCELLED, 0);
    this.running = true;
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
    try {
      let restartedFirst: KernelRestart | undefined;
      if (this.channel === undefined || this.channel.isClosed) restartedFirst = await this.recover('died');
      const timeoutMs = timerMs(options.timeoutMs ?? this.options.cellTimeoutMs);
      const pending = this.request(code, options.outputLimitBytes ?? this.options.outputLimitBytes);
      const first = await awaitReply(pending, timeoutMs, options.signal);
      const execution = await this.settle(first, pending, timeoutMs, elapsed);
      if (execution.error) execution.error = await explainDiskFull(execution.error, this.options.workspace);
      if (restartedFirst && !execution.restarted) execution.restarted = restartedFirst;
      if (!execution.error && options.journal !== false) this.journal.push({ code, timeoutMs });
      this.options.onCell?.(execution.durationMs);
      this.options.logger.debug(
        { sessionId: this.session, durationMs: execution.durationMs, error: execution.error?.name },
        'cell finished',
      );
      return execution;
    } finally {
      this.running = false;
    }
  }

  /** Sends a cell; the reply comes with its attachment read (and removed) even if nobody awaits it any more. */
  private request(code: string, outputLimitBytes: number): Promise<Record<string, unknown>> {
    const channel = this.channel;
    if (channel === undefined) return Promise.reject(new ChannelClosedError('not started'));
    const maxBytes = maxReplyBytes(outputLimitBytes);
    const { workspace } = this.options;
    const pending = channel
      .request({ op: 'run', code, outputLimitBytes }, maxBytes)
      .then((reply) => resolveAttachment(reply, (name, bytes) => workspace.takeFromOutbox(name, bytes), maxBytes));
    pending.catch(() => {});
    return pending;
  }

  /** Turns what happened to a cell into its Execution, interrupting or restarting as needed. */
  private async settle(
    outcome: ReplyOutcome,
    pending: Promise<Record<string, unknown>>,
    timeoutMs: number,
    elapsed: () => number,
  ): Promise<Execution> {
    if (this.disposed) throw new KernelClosedError(this.session);
    if (outcome.kind === 'reply') return toExecution(outcome.reply, elapsed());
    if (outcome.kind === 'lost') return hostFailure(outcome.error, elapsed());
    if (outcome.kind === 'closed') {
      const restarted = await this.recover('died');
      return { ...hostFailure(deathError(restarted, this.options.limits), elapsed()), restarted };
    }
    const stopped: ExecutionError = outcome.kind === 'timeout' ? timeoutError(timeoutMs) : CANCELLED;
    await this.container?.signal('SIGINT');
    const second = await awaitReply(pending, this.graceMs);
    if (this.disposed) throw new KernelClosedError(this.session);
    if (second.kind === 'reply') {
      const execution = toExecution(second.reply, elapsed());
      if (!execution.error) return execution; // it finished just as the limit struck
      return {
        ...execution,
        error: { ...stopped, traceback: execution.error.traceback },
        timedOut: outcome.kind === 'timeout',
      };
    }
    const timedOut = outcome.kind === 'timeout';
    if (second.kind === 'closed') {
      // It died while stopping (out of memory, or its own KeyboardInterrupt handler exited): say so.
      const restarted = await this.recover('died');
      return { ...hostFailure(deathError(restarted, this.options.limits), elapsed()), timedOut, restarted };
    }
    const restarted = await this.recover('unresponsive');
    return { ...hostFailure(unresponsiveError(stopped, restarted), elapsed()), timedOut, restarted };
  }

  /**
   * Stops the container and starts a fresh one on the same folders, and says how the old one
   * ended. A fresh container, not a restarted one: Docker's OOMKilled flag covers a container's
   * whole life, so after one out-of-memory kill every later death would look like another.
   */
  private async replaceContainer(): Promise<ContainerEnd> {
    const old = this.container;
    const ended = (await old?.stop()) ?? { oomKilled: false };
    await old?.remove();
    this.assertOpen();
    await this.startContainer();
    return ended;
  }

  /** Starts a fresh interpreter and replays the journal. */
  private async recover(reason: KernelRestart['reason']): Promise<KernelRestart> {
    this.assertOpen();
    const ended = await this.replaceContainer();
    this.options.logger.warn({ sessionId: this.session, reason, exitCode: ended.exitCode }, 'restarted kernel');
    let replayed = 0;
    for (const entry of this.journal) {
      const outcome = await this.replay(entry);
      if (outcome === 'replayed') replayed += 1;
      else if (outcome === 'reset') replayed = 0; // a fresh interpreter again: what came before is gone
    }
    const killedByUs = reason !== 'died';
    return {
      reason,
      ...(killedByUs || ended.exitCode === undefined ? {} : { exitCode: ended.exitCode }),
      // Killed by the OOM killer: the flag alone also covers a child killed while the driver lived on.
      oomLikely: !killedByUs && ended.oomKilled && ended.exitCode === 137,
      replayedCells: replayed,
      failedReplays: this.journal.length - replayed,
    };
  }

  /**
   * Replays one journal cell under the time limit it first ran with. A cell that fails or runs over
   * is counted and the replay goes on; one that kills or hangs the kernel costs a fresh one.
   */
  private async replay(entry: JournalEntry): Promise<'replayed' | 'failed' | 'reset'> {
    const pending = this.request(entry.code, REPLAY_OUTPUT_LIMIT);
    let outcome = await awaitReply(pending, entry.timeoutMs);
    if (outcome.kind === 'timeout') {
      await this.container?.signal('SIGINT');
      outcome = await awaitReply(pending, this.graceMs);
    }
    if (outcome.kind === 'reply') return succeeded(outcome.reply) ? 'replayed' : 'failed';
    if (outcome.kind === 'lost') return 'failed'; // an over-long reply: the kernel lives on
    await this.replaceContainer();
    return 'reset';
  }

  private get graceMs(): number {
    return timerMs(this.options.interruptGraceMs ?? 2000);
  }
}
