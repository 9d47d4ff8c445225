/**
 * The Sandbox port on a Docker engine: one kernel per session, started in turn through admission
 * (a start limit and a kernel cap, parking the least recently used idle kernel at the cap), a warm
 * pool that follows the arrival rate, idle kernels disposed after a TTL, and this instance's orphans
 * (containers and workspaces) reaped at start-up.
 */
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { Logger } from '../src/base/logger.js';
import type { AcquireOptions, Kernel, Sandbox } from '../src/ports/sandbox.js';
import type { SandboxLimits } from './container-spec.js';
import { DockerKernel } from './docker-kernel.js';
import { KernelAdmission } from './kernel-admission.js';
import { prepareSandboxHost, type SandboxHost } from './prepare-sandbox-host.js';
import { reapInstance } from './reap-instance.js';
import { startSessionKernel } from './start-session-kernel.js';
import { WarmPool } from './warm-pool.js';
import { Workspace } from './workspace.js';

export interface DockerSandboxOptions {
  docker: Docker;
  /** Image reference, e.g. the content-hashed `tally-sandbox:<hash>`. */
  image: string;
  /** Names this process's containers; start-up removes containers left by an earlier run of it. */
  instance: string;
  /** Host folder that holds one workspace folder per kernel. It belongs to this instance: start-up empties it. */
  workspaceRoot: string;
  limits: SandboxLimits;
  /**
   * TALLY_SANDBOX_RUNTIME: `auto` (default: gVisor's runsc when the engine has it, else runc with a
   * warning), `runc` or the name of a runtime the engine lists (sandbox-runtime.ts).
   */
  runtime?: string;
  /**
   * What /workspace, /inputs and /outbox of one session may hold together, in MiB: a loop-mounted filesystem
   * per session (see loop-filesystem.ts). It needs root, loop devices and mkfs.ext4; where start-up
   * cannot mount one (rootless Docker, Docker Desktop) it logs a warning and sessions get plain
   * folders without a total quota. Default 2048.
   */
  diskMb?: number;
  /** Kernels kept started and ready at the least. 0 (with poolMax 0) disables the pool. */
  poolSize: number;
  /** The pool grows with the arrival rate of new sessions up to this. Default: poolSize. */
  poolMax?: number;
  /** Kernels in all, at most (sessions' and the pool's); at the cap idle ones are parked. Default: no cap. */
  maxKernels?: number;
  /** Kernel starts at once, at most. Default 2. */
  maxConcurrentStarts?: number;
  /** Tries per kernel start when it fails for a passing reason (a busy machine). Default 3. */
  startAttempts?: number;
  /** Told how long each kernel start took and whether it worked (metrics). */
  onKernelStart?: (durationMs: number, ok: boolean) => void;
  /** Told how long each cell ran (metrics). */
  onCell?: (durationMs: number) => void;
  /** Kernels idle this long are disposed. */
  idleTtlMs: number;
  cellTimeoutMs: number;
  outputLimitBytes: number;
  interruptGraceMs?: number;
  /** How long a kernel's driver may take to say "ready", counted from when its start began. Default 60000. */
  startTimeoutMs?: number;
  logger: Logger;
}

const POOL_SESSION = 'pool';
/** A kernel used this recently is not parked: its thread may be about to use it. */
const PARK_GRACE_MS = 1000;

/** What the sandbox holds now, for metrics and readiness. */
export interface SandboxStats {
  /** Kernels that belong to sessions. */
  live: number;
  /** Ready kernels in the warm pool. */
  pooled: number;
  /** Kernel starts running now. */
  starting: number;
  /** Sessions waiting in line for a start. */
  waiting: number;
  /** Kernels parked to make room since start-up. */
  parked: number;
  /** Kernels started since start-up (for sessions and for the pool). */
  started: number;
}

export class DockerSandbox implements Sandbox {
  private readonly live = new Map<string, DockerKernel>();
  private readonly starting = new Map<string, Promise<DockerKernel>>();
  private readonly pool: WarmPool;
  private readonly admission: KernelAdmission;
  private parkedCount = 0;
  private startedCount = 0;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  private constructor(
    private readonly options: DockerSandboxOptions,
    private readonly host: SandboxHost,
  ) {
    this.admission = new KernelAdmission({
      maxConcurrentStarts: options.maxConcurrentStarts ?? 2,
      maxKernels: options.maxKernels ?? Number.POSITIVE_INFINITY,
      kernelCount: () => this.live.size + this.pool.available,
      parkOne: () => this.parkOne(),
    });
    this.pool = new WarmPool({
      minSize: options.poolSize,
      maxSize: Math.max(options.poolSize, options.poolMax ?? options.poolSize),
      create: () => this.startKernel(POOL_SESSION),
      admit: () => this.admission.tryAdmitBackground(),
      logger: options.logger,
    });
  }

  /** Checks the engine and the image, reaps orphans, and starts filling the warm pool. */
  static async start(options: DockerSandboxOptions): Promise<DockerSandbox> {
    const sandbox = new DockerSandbox(options, await prepareSandboxHost(options));
    sandbox.pool.fill();
    const every = Math.max(1000, Math.min(60_000, Math.floor(options.idleTtlMs / 2)));
    sandbox.sweeper = setInterval(() => {
      sandbox.sweep().catch((error: unknown) => options.logger.error({ err: error }, 'idle sweep failed'));
    }, every);
    sandbox.sweeper.unref();
    return sandbox;
  }

  /** Kernels that belong to sessions now (not counting the pool). */
  get sessions(): ReadonlyMap<string, DockerKernel> {
    return this.live;
  }

  /** The container runtime kernels run under (`runsc`, `runc`, …). */
  get runtime(): string {
    return this.host.runtime;
  }

  /** Each session's disk quota in MiB, or undefined where this host cannot enforce one. */
  get diskQuotaMb(): number | undefined {
    return this.host.diskMb;
  }

  get warmPool(): WarmPool {
    return this.pool;
  }

  /** Where this instance's kernels run, for other replicas to know it: the engine's id and the workspace folder. */
  async placement(): Promise<{ engine: string; workspaceRoot: string }> {
    const info = (await this.options.docker.info()) as { ID?: string };
    return { engine: info.ID ?? '', workspaceRoot: this.options.workspaceRoot };
  }

  /** Removes the leftovers of another instance on this engine whose process died (`reap-instance.ts`). */
  reapInstance(instance: string, workspaceRoot: string, before: number): Promise<number> {
    if (instance === this.options.instance) throw new Error('an instance does not reap itself while it runs');
    return reapInstance({ docker: this.options.docker, instance, workspaceRoot, before, logger: this.options.logger });
  }

  /** Asks the engine whether it answers (readiness). */
  async ping(): Promise<void> {
    await this.options.docker.ping();
  }

  stats(): SandboxStats {
    return {
      live: this.live.size,
      pooled: this.pool.available,
      starting: this.admission.inProgress,
      waiting: this.admission.waiting,
      parked: this.parkedCount,
      started: this.startedCount,
    };
  }

  acquire(sessionId: string, options: AcquireOptions = {}): Promise<Kernel> {
    const current = this.live.get(sessionId);
    if (current && !current.isDisposed) {
      current.touch();
      return Promise.resolve(current);
    }
    const pending = this.starting.get(sessionId);
    if (pending) return pending;
    this.pool.noteArrival();
    const starting = this.startForSession(sessionId, options).finally(() => this.starting.delete(sessionId));
    this.starting.set(sessionId, starting);
    return starting;
  }

  async release(sessionId: string): Promise<boolean> {
    const kernel = this.live.get(sessionId) ?? (await this.starting.get(sessionId)?.catch(() => undefined));
    if (!kernel || kernel.isDisposed) return false;
    await kernel.dispose();
    return true;
  }

  /** Disposes kernels idle for longer than the TTL. Runs on a timer; callable directly. */
  sweep(now = Date.now()): Promise<number> {
    const sweeping = this.disposeIdle(now).finally(() => {
      if (this.sweeping === sweeping) this.sweeping = undefined;
    });
    this.sweeping = sweeping;
    return sweeping;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.admission.close(new Error('the sandbox is closing'));
    await this.sweeping?.catch(() => {});
    await Promise.allSettled(this.starting.values());
    await this.pool.close();
    await Promise.allSettled([...this.live.values()].map((kernel) => kernel.dispose()));
  }

  private async disposeIdle(now: number): Promise<number> {
    const idle = [...this.live.values()].filter(
      (kernel) => !kernel.isBusy && !kernel.isHeld && now - kernel.lastActiveAt > this.options.idleTtlMs,
    );
    await Promise.allSettled(idle.map((kernel) => kernel.dispose()));
    if (idle.length > 0) this.options.logger.info({ count: idle.length }, 'disposed idle kernels');
    await this.pool.trim();
    return idle.length;
  }

  /** A kernel for a session: a warm one, else a new one once admission lets it start. */
  private startForSession(sessionId: string, options: AcquireOptions): Promise<DockerKernel> {
    return startSessionKernel(sessionId, options, {
      pool: this.pool,
      admission: this.admission,
      startKernel: (id) => this.startKernel(id),
      hand: (kernel, id) => this.hand(kernel, id),
      attempts: this.options.startAttempts ?? 3,
      ...(this.options.onKernelStart ? { onKernelStart: this.options.onKernelStart } : {}),
      logger: this.options.logger,
    });
  }

  private hand(kernel: DockerKernel, sessionId: string): DockerKernel {
    kernel.adopt(sessionId);
    this.live.set(sessionId, kernel);
    return kernel;
  }

  /** Makes room at the kernel cap: a warm kernel first, else the least recently used idle one. */
  private async parkOne(): Promise<boolean> {
    if (await this.pool.giveUpOne()) return true;
    const now = Date.now();
    const idle = [...this.live.values()]
      .filter((kernel) => !kernel.isBusy && !kernel.isHeld && !kernel.isDisposed)
      .filter((kernel) => now - kernel.lastActiveAt >= PARK_GRACE_MS)
      .sort((left, right) => left.lastActiveAt - right.lastActiveAt);
    const oldest = idle[0];
    if (!oldest) return false;
    this.live.delete(oldest.sessionId);
    await oldest.dispose();
    this.parkedCount += 1;
    this.options.logger.info({ sessionId: oldest.sessionId }, 'parked an idle kernel to make room');
    return true;
  }

  /**
   * Starts a kernel; its folders are made while its container is created. A warm-pool kernel imports
   * the analysis stack before it counts as ready; one a session waits for is ready without it.
   */
  private async startKernel(sessionId: string): Promise<DockerKernel> {
    const kernelId = randomBytes(6).toString('hex');
    const workspace = Workspace.begin(
      this.options.workspaceRoot,
      kernelId,
      this.host.diskMb === undefined ? {} : { diskMb: this.host.diskMb },
    );
    const logger = this.options.logger.child({ kernelId });
    try {
      const kernel = await DockerKernel.start({
        docker: this.options.docker,
        image: this.options.image,
        instance: this.options.instance,
        kernelId,
        sessionId,
        workspace,
        preload: sessionId === POOL_SESSION,
        limits: this.options.limits,
        runtime: this.host.runtime,
        cellTimeoutMs: this.options.cellTimeoutMs,
        outputLimitBytes: this.options.outputLimitBytes,
        ...(this.options.interruptGraceMs === undefined ? {} : { interruptGraceMs: this.options.interruptGraceMs }),
        ...(this.options.onCell ? { onCell: this.options.onCell } : {}),
        ...(this.options.startTimeoutMs === undefined ? {} : { startTimeoutMs: this.options.startTimeoutMs }),
        logger,
        onDispose: (kernel) => {
          if (this.live.get(kernel.sessionId) === kernel) this.live.delete(kernel.sessionId);
          this.admission.wake();
          this.pool.fill();
        },
      });
      this.startedCount += 1;
      return kernel;
    } catch (error) {
      await workspace.remove().catch((removal: unknown) => {
        logger.error({ err: removal, path: workspace.hostPath }, 'could not remove kernel workspace');
      });
      throw error;
    }
  }
}
