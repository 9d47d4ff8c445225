/**
 * A session's kernel: one hardened container running the Python driver, spoken to over its
 * attached stream. Cells run one at a time; a timeout interrupts the cell and keeps the state;
 * a dead or unresponsive kernel is restarted and its journal of successful cells replayed.
 */
import type Docker from 'dockerode';
import { KernelClosedError, KernelStartError, SandboxImageMissingError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';
import {
  type Execution,
  type ExecutionError,
  type Kernel,
  type KernelRestart,
  MAX_TIMEOUT_MS,
  type ReadFileOptions,
  type RunOptions,
} from '../src/ports/sandbox.js';
import { containerSpec, type SandboxLimits } from './container-spec.js';
import { hostFailure, succeeded, toExecution } from './execution.js';
import { ChannelClosedError, KernelChannel } from './kernel-channel.js';
import type { Workspace } from './workspace.js';

export interface DockerKernelOptions {
  docker: Docker;
  image: string;
  instance: string;
  kernelId: string;
  sessionId: string;
  workspace: Workspace;
  limits: SandboxLimits;
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
}

interface JournalEntry {
  code: string;
  timeoutMs: number;
}

type Outcome =
  | { kind: 'reply'; reply: Record<string, unknown> }
  | { kind: 'closed' }
  | { kind: 'lost'; message: string }
  | { kind: 'timeout' }
  | { kind: 'aborted' };

const REPLAY_OUTPUT_LIMIT = 1024;
const CANCELLED: ExecutionError = { name: 'Cancelled', value: 'The cell was cancelled.', traceback: '' };

export class DockerKernel implements Kernel {
  lastActiveAt = Date.now();
  private channel: KernelChannel | undefined;
  /** Cells that succeeded, each with the time limit it ran under, replayed after a restart. */
  private readonly journal: JournalEntry[] = [];
  private tail: Promise<unknown> = Promise.resolve();
  private disposed = false;
  private disposal: Promise<void> | undefined;
  private running = false;
  private queued = 0;
  private session: string;

  /** The current container; recovery replaces it with a fresh one on the same folders. */
  private container: Docker.Container | undefined;
  private creating: Promise<void> | undefined;

  private constructor(private readonly options: DockerKernelOptions) {
    this.session = options.sessionId;
  }

  static async start(options: DockerKernelOptions): Promise<DockerKernel> {
    const kernel = new DockerKernel(options);
    try {
      await kernel.createContainer();
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
    if (this.running) await this.signal('SIGINT');
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
    this.channel?.close('disposed');
    // A container being created now is removed too (creation stops early once disposed).
    await this.creating?.catch(() => {});
    // Best effort throughout: disposal runs from timers and shutdown, where a throw would take the process down.
    await this.removeContainer();
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

  /** Creates a container on the kernel's folders and waits for its driver to say "ready". */
  private createContainer(): Promise<void> {
    const creating = this.createAndBoot();
    this.creating = creating;
    return creating;
  }

  private async createAndBoot(): Promise<void> {
    const { docker, image, instance, kernelId, workspace, limits } = this.options;
    this.container = await docker
      .createContainer(
        containerSpec({
          image,
          name: `tally-${instance}-${kernelId}`,
          instance,
          kernelId,
          sessionId: this.session,
          workHostPath: workspace.workPath,
          inputsHostPath: workspace.inputsPath,
          limits,
        }),
      )
      .catch((error: { statusCode?: number }) => {
        throw error.statusCode === 404 ? new SandboxImageMissingError(image) : error;
      });
    this.assertOpen();
    const channel = await KernelChannel.attach(this.container, docker.modem, {
      maxLineBytes: maxReplyBytes(this.options.outputLimitBytes),
      logger: this.options.logger,
    });
    this.channel = channel;
    if (this.disposed) channel.close('disposed'); // disposed while attaching: the ready wait below fails at once
    await this.container.start();
    const startTimeoutMs = timerMs(this.options.startTimeoutMs ?? 60_000);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no "ready" within ${startTimeoutMs} ms`)), startTimeoutMs);
    });
    try {
      await Promise.race([channel.ready, timedOut]);
    } catch (error) {
      this.assertOpen();
      throw new KernelStartError(error instanceof Error ? error.message : String(error), {
        stderr: channel.stderr,
        image: this.options.image,
      });
    } finally {
      clearTimeout(timer);
    }
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
      const first = await this.wait(pending, timeoutMs, options.signal);
      const execution = await this.settle(first, pending, timeoutMs, elapsed);
      if (restartedFirst && !execution.restarted) execution.restarted = restartedFirst;
      if (!execution.error && options.journal !== false) this.journal.push({ code, timeoutMs });
      this.options.logger.debug(
        { sessionId: this.session, durationMs: execution.durationMs, error: execution.error?.name },
        'cell finished',
      );
      return execution;
    } finally {
      this.running = false;
    }
  }

  private request(code: string, outputLimitBytes: number): Promise<Record<string, unknown>> {
    const channel = this.channel;
    if (channel === undefined) return Promise.reject(new ChannelClosedError('not started'));
    const pending = channel.request({ op: 'run', code, outputLimitBytes }, maxReplyBytes(outputLimitBytes));
    pending.catch(() => {});
    return pending;
  }

  /** Turns what happened to a cell into its Execution, interrupting or restarting as needed. */
  private async settle(
    outcome: Outcome,
    pending: Promise<Record<string, unknown>>,
    timeoutMs: number,
    elapsed: () => number,
  ): Promise<Execution> {
    if (this.disposed) throw new KernelClosedError(this.session);
    if (outcome.kind === 'reply') return toExecution(outcome.reply, elapsed());
    if (outcome.kind === 'lost')
      return hostFailure({ name: 'OutputTooLarge', value: outcome.message, traceback: '' }, elapsed());
    if (outcome.kind === 'closed') {
      const restarted = await this.recover('died');
      return { ...hostFailure(deathError(restarted, this.options.limits), elapsed()), restarted };
    }
    const stopped: ExecutionError =
      outcome.kind === 'timeout'
        ? {
            name: 'TimeoutError',
            value: `The cell ran longer than ${timeoutMs} ms and was interrupted. Raise the limit with the run option timeoutMs (default TALLY_CELL_TIMEOUT_MS).`,
            traceback: '',
          }
        : CANCELLED;
    await this.signal('SIGINT');
    const second = await this.wait(pending, this.graceMs, undefined);
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
    const value = `${stopped.value} The kernel did not stop when interrupted, so it was restarted and ${restarted.replayedCells} earlier cells were replayed.`;
    return { ...hostFailure({ ...stopped, value }, elapsed()), timedOut, restarted };
  }

  private wait(
    pending: Promise<Record<string, unknown>>,
    ms: number,
    signal: AbortSignal | undefined,
  ): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      const finish = (outcome: Outcome) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const timer = setTimeout(() => finish({ kind: 'timeout' }), ms);
      const onAbort = () => finish({ kind: 'aborted' });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      pending.then(
        (reply) => finish({ kind: 'reply', reply }),
        (error: unknown) =>
          finish(error instanceof ChannelClosedError ? { kind: 'closed' } : { kind: 'lost', message: String(error) }),
      );
    });
  }

  private async signal(name: 'SIGINT' | 'SIGKILL'): Promise<void> {
    await this.container?.kill({ signal: name }).catch(() => {}); // not running: nothing to signal
  }

  private async removeContainer(): Promise<void> {
    await this.container?.remove({ force: true }).catch((error: { statusCode?: number }) => {
      if (error.statusCode !== 404) this.options.logger.warn({ err: error }, 'could not remove kernel container');
    });
  }

  /**
   * Kills the container and starts a fresh one on the same folders, and says how the old one
   * ended. A fresh container, not a restarted one: Docker's OOMKilled flag covers a container's
   * whole life, so after one out-of-memory kill every later death would look like another.
   */
  private async replaceContainer(): Promise<{ exitCode?: number; oomKilled: boolean }> {
    this.channel?.close('restarting');
    await this.signal('SIGKILL');
    await this.container?.wait().catch(() => {});
    const state = await this.container?.inspect().then(
      (info) => info.State,
      () => undefined,
    );
    await this.removeContainer();
    this.assertOpen();
    await this.createContainer();
    return { ...(state === undefined ? {} : { exitCode: state.ExitCode }), oomKilled: state?.OOMKilled ?? false };
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
    let outcome = await this.wait(pending, entry.timeoutMs, undefined);
    if (outcome.kind === 'timeout') {
      await this.signal('SIGINT');
      outcome = await this.wait(pending, this.graceMs, undefined);
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

/** A duration Node's timers can hold: at least 1 ms, at most MAX_TIMEOUT_MS (longer ones fire at once). */
function timerMs(ms: number): number {
  return Number.isNaN(ms) ? MAX_TIMEOUT_MS : Math.min(Math.max(ms, 1), MAX_TIMEOUT_MS);
}

/**
 * The longest reply a cell can legitimately produce: two capped streams, each byte of which may
 * become a six-byte JSON escape, plus figures (at most 10, each at most 8 MiB, base64).
 */
function maxReplyBytes(outputLimitBytes: number): number {
  return 12 * outputLimitBytes + 10 * 12 * 1024 * 1024 + 1024 * 1024;
}

function deathError(restart: KernelRestart, limits: SandboxLimits): ExecutionError {
  const cause = restart.oomLikely
    ? `it ran out of memory (the sandbox has ${limits.memoryMb} MB; TALLY_SANDBOX_MEMORY_MB raises it)`
    : restart.exitCode === 137
      ? 'it was killed (exit 137, SIGKILL)'
      : `its process exited with code ${restart.exitCode ?? 'unknown'}`;
  const state =
    restart.failedReplays === 0
      ? `${restart.replayedCells} earlier cells were replayed, so their variables are back`
      : `${restart.replayedCells} earlier cells were replayed and ${restart.failedReplays} failed, so some variables may be missing`;
  return {
    name: 'KernelDied',
    value: `The kernel died while running this cell: ${cause}. It was restarted; ${state}.`,
    traceback: '',
  };
}
