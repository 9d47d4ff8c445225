/**
 * The Sandbox port on a Docker engine: one kernel per session, started in turn through admission
 * (a start limit and a kernel cap, parking the least recently used idle kernel at the cap), a warm
 * pool that follows the arrival rate, idle kernels disposed after a TTL, and this instance's orphans
 * (containers and workspaces) reaped at start-up.
 */
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import {
  KernelStartError,
  SandboxEngineUnavailableError,
  SandboxImageMissingError,
  SandboxWorkspaceHiddenError,
} from '../src/base/errors.js';
import type { Logger } from '../src/base/logger.js';
import type { AcquireOptions, Kernel, Sandbox } from '../src/ports/sandbox.js';
import type { SandboxLimits } from './container-spec.js';
import { DockerKernel } from './docker-kernel.js';
import { engineSeesFolder, type VisibilityProbe } from './engine-visibility.js';
import { KernelAdmission } from './kernel-admission.js';
import { LoopFilesystem } from './loop-filesystem.js';
import { reapOrphans } from './reap-orphans.js';
import { resolveRuntime } from './sandbox-runtime.js';
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
  private diskMb: number | undefined;
  private runtimeName = 'runc';

  private constructor(private readonly options: DockerSandboxOptions) {
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
    await options.docker.ping().catch((error: unknown) => {
      throw new SandboxEngineUnavailableError(describeEndpoint(options.docker), error);
    });
    await options.docker
      .getImage(options.image)
      .inspect()
      .catch(() => {
        throw new SandboxImageMissingError(options.image);
      });
    const sandbox = new DockerSandbox(options);
    const runtime = await resolveRuntime(options.docker, options.runtime ?? 'auto');
    sandbox.runtimeName = runtime.name;
    await reapOrphans(options);
    if (!(await engineSeesFolder(sandbox.visibility, options.workspaceRoot))) {
      throw new SandboxWorkspaceHiddenError(options.workspaceRoot);
    }
    await sandbox.checkDiskQuota();
    // Said once the sandbox can start, so a start-up that fails says only why.
    if (runtime.warning) options.logger.warn({ runtime: runtime.name }, runtime.warning);
    else options.logger.info({ runtime: runtime.name }, 'kernels run under this container runtime');
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
    return this.runtimeName;
  }

  /** Each session's disk quota in MiB, or undefined where this host cannot enforce one. */
  get diskQuotaMb(): number | undefined {
    return this.diskMb;
  }

  get warmPool(): WarmPool {
    return this.pool;
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

  /**
   * A kernel for a session: a warm one, else a new one once admission lets it start. A start that
   * fails for a passing reason goes to the front of the line and tries again.
   */
  private async startForSession(sessionId: string, options: AcquireOptions): Promise<DockerKernel> {
    const attempts = this.options.startAttempts ?? 3;
    for (let attempt = 1; ; attempt += 1) {
      const warm = this.pool.take();
      if (warm) return this.hand(warm, sessionId);
      const release = await this.admission.admit({
        ...(attempt === 1 && options.onQueued ? { onQueued: options.onQueued } : {}),
        front: attempt > 1,
      });
      const started = performance.now();
      try {
        const pooled = this.pool.take(); // it may have become ready while this waited
        if (pooled) return this.hand(pooled, sessionId);
        const kernel = this.hand(await this.startKernel(sessionId), sessionId);
        this.options.onKernelStart?.(performance.now() - started, true);
        return kernel;
      } catch (error) {
        this.options.onKernelStart?.(performance.now() - started, false);
        if (!(error instanceof KernelStartError && error.transient) || attempt >= attempts) throw error;
        this.options.logger.warn({ err: error, sessionId, attempt }, 'kernel start failed; trying again');
      } finally {
        release(); // after the kernel counts as live, so the cap never sees it twice or not at all
      }
    }
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
      this.diskMb === undefined ? {} : { diskMb: this.diskMb },
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
        runtime: this.runtimeName,
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

  /**
   * Tries the disk quota's mechanism once. Where it fails, sessions still start, on plain folders:
   * a laptop with rootless Docker or Docker Desktop keeps working, and the warning says what is lost
   * (the per-file limit still holds).
   */
  private async checkDiskQuota(): Promise<void> {
    const diskMb = this.options.diskMb ?? 2048;
    const failure = await LoopFilesystem.probe(this.options.workspaceRoot, async (inside) => {
      if (await engineSeesFolder(this.visibility, inside)) return undefined;
      return `the Docker engine does not see filesystems mounted in ${this.options.workspaceRoot}: mount TALLY_HOME into tally's container with bind propagation rshared (on a shared mount on the host)`;
    });
    if (failure === undefined) {
      this.diskMb = diskMb;
      return;
    }
    this.options.logger.warn(
      { reason: failure, diskMb },
      "TALLY_SANDBOX_DISK_MB is not enforced: tally cannot mount a filesystem per session that kernels see (it needs root, loop devices and mkfs.ext4; in a container also CAP_SYS_ADMIN, the host's /dev and shared mount propagation), so workspaces have no total quota",
    );
  }

  private get visibility(): VisibilityProbe {
    return { docker: this.options.docker, image: this.options.image, instance: this.options.instance };
  }
}

function describeEndpoint(docker: Docker): string {
  const modem = docker.modem as { socketPath?: string; host?: string; port?: number };
  return modem.socketPath ? `unix://${modem.socketPath}` : `tcp://${modem.host}:${modem.port}`;
}
