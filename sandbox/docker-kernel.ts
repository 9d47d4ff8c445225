/**
 * A session's kernel: one hardened container running the Python driver, spoken to over its
 * attached stream. Cells run one at a time; a timeout interrupts the cell and keeps the state;
 * a dead or unresponsive kernel is restarted and its journal of successful cells replayed.
 */
import { KernelClosedError } from '../src/base/errors.js';
import type {
  Execution,
  ExecutionError,
  Kernel,
  KernelRestart,
  ReadFileOptions,
  RunOptions,
} from '../src/ports/sandbox.js';
import { awaitReply, type ReplyOutcome } from './await-reply.js';
import { hostFailure, toExecution } from './execution.js';
import { explainDiskFull } from './explain-disk-full.js';
import { CANCELLED, deathError, timeoutError, unresponsiveError } from './host-failures.js';
import { ChannelClosedError, type KernelChannel } from './kernel-channel.js';
import { KernelJournal, type ReplayTarget } from './kernel-journal.js';
import { maxReplyBytes, timerMs } from './kernel-limits.js';
import { resolveAttachment } from './reply-attachment.js';
import { RestartableContainer, type RestartableContainerOptions } from './restartable-container.js';

/** What its containers are made from (see RestartableContainerOptions), and the kernel's own settings. */
export interface DockerKernelOptions extends RestartableContainerOptions {
  sessionId: string;
  /** Default per-cell wall-clock limit. */
  cellTimeoutMs: number;
  /** How long an interrupted cell may take to stop before the kernel is killed. Default 2000. */
  interruptGraceMs?: number;
  /** Called once the kernel is disposed, so its owner forgets it. */
  onDispose?: (kernel: DockerKernel) => void;
  /** Told how long each cell ran (metrics). */
  onCell?: (durationMs: number) => void;
}

export class DockerKernel implements Kernel {
  lastActiveAt = Date.now();
  /** Cells that succeeded, each with the time limit it ran under, replayed after a restart. */
  private readonly journal = new KernelJournal();
  private tail: Promise<unknown> = Promise.resolve();
  private disposed = false;
  private disposal: Promise<void> | undefined;
  private running = false;
  private queued = 0;
  private holds = 0;
  private session: string;
  /** Recovery replaces the container with a fresh one on the same folders. */
  private readonly container: RestartableContainer;

  private constructor(private readonly options: DockerKernelOptions) {
    this.session = options.sessionId;
    this.container = new RestartableContainer(options);
  }

  static async start(options: DockerKernelOptions): Promise<DockerKernel> {
    const kernel = new DockerKernel(options);
    try {
      await kernel.container.start(kernel.session);
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
    return this.container.id;
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
    if (this.running) await this.container.signal('SIGINT');
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
    // Best effort throughout: disposal runs from timers and shutdown, where a throw would take the process down.
    await this.container.close(new KernelClosedError(this.session));
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
    return this.container.channel;
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
      if (!execution.error && options.journal !== false) this.journal.record(code, timeoutMs);
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
    await this.container.signal('SIGINT');
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

  /** Starts a fresh interpreter and replays the journal. */
  private async recover(reason: KernelRestart['reason']): Promise<KernelRestart> {
    this.assertOpen();
    const ended = await this.container.replace(this.session);
    this.options.logger.warn({ sessionId: this.session, reason, exitCode: ended.exitCode }, 'restarted kernel');
    const replayed = await this.journal.replay(this.replayTarget);
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

  private get replayTarget(): ReplayTarget {
    return {
      request: (code, outputLimitBytes) => this.request(code, outputLimitBytes),
      interrupt: () => this.container.signal('SIGINT'),
      replaceContainer: () => this.container.replace(this.session),
      graceMs: this.graceMs,
    };
  }

  private get graceMs(): number {
    return timerMs(this.options.interruptGraceMs ?? 2000);
  }
}
