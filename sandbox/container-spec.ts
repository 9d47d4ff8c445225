/** The hardened container every kernel runs in. Pure: options in, Docker create options out. */
import type { ContainerCreateOptions } from 'dockerode';

export const SANDBOX_USER = '10001:10001';
export const WORKSPACE_MOUNT = '/workspace';
export const INPUTS_MOUNT = '/inputs';
/** Where the driver leaves a reply's large payloads for the host (see kernel/outbox.py). */
export const OUTBOX_MOUNT = '/outbox';
/** Modules a warm-pool kernel imports before it says "ready", so its first cell is fast. */
export const PRELOAD = ['numpy', 'pandas', 'matplotlib.pyplot'];

const MIB = 1024 * 1024;

export interface SandboxLimits {
  memoryMb: number;
  /** CPU cores, fractions allowed. */
  cpus: number;
  pidsLimit: number;
  /** Size of the tmpfs on /tmp. */
  tmpMb: number;
  /**
   * Largest file a kernel process may write (RLIMIT_FSIZE), in MiB; default 4096. The total of a
   * session's files is held by its disk quota (TALLY_SANDBOX_DISK_MB, see loop-filesystem.ts).
   */
  fileSizeMb?: number;
}

export const DEFAULT_FILE_SIZE_MB = 4096;

export interface ContainerSpecOptions {
  image: string;
  name: string;
  /** Labels that let start-up find and reap this instance's orphans. */
  instance: string;
  kernelId: string;
  /** The session the kernel was started for; `pool` for warm kernels (labels cannot change later). */
  sessionId: string;
  /** Host folder mounted read-write at /workspace. */
  workHostPath: string;
  /** Host folder mounted read-only at /inputs, where the host delivers files. */
  inputsHostPath: string;
  /** Host folder mounted read-write at /outbox, where the driver leaves large reply payloads. */
  outboxHostPath: string;
  /**
   * Import PRELOAD before saying "ready" (warm-pool kernels, which have time). Otherwise the kernel
   * is ready about half a second sooner and imports PRELOAD in the background after saying so.
   * Default false.
   */
  preload?: boolean;
  limits: SandboxLimits;
  /** The engine's runtime to run it under (`runsc`, `runc`, …); default the engine's own default. */
  runtime?: string;
}

export const LABELS = {
  managed: 'tally.managed',
  instance: 'tally.instance',
  kernel: 'tally.kernel',
  session: 'tally.session',
} as const;

/**
 * Host threads gVisor's sentry may use. Under runsc the pids cgroup counts the sentry's threads, not the cell's
 * processes, and a sandbox that hits it dies whole (exit 2); the cell's processes are capped inside instead.
 */
export const GVISOR_HOST_THREADS = 1024;

export function containerSpec(options: ContainerSpecOptions): ContainerCreateOptions {
  const { limits } = options;
  const gvisor = options.runtime === 'runsc';
  const fileSizeBytes = (limits.fileSizeMb ?? DEFAULT_FILE_SIZE_MB) * MIB;
  return {
    name: options.name,
    Image: options.image,
    User: SANDBOX_USER,
    WorkingDir: WORKSPACE_MOUNT,
    Hostname: 'sandbox',
    // Only what the driver needs; nothing of the host's environment.
    Env: [
      options.preload ? `TALLY_PRELOAD=${PRELOAD.join(',')}` : `TALLY_PRELOAD_LATER=${PRELOAD.join(',')}`,
      'TMPDIR=/tmp',
      `TALLY_WORKSPACE=${WORKSPACE_MOUNT}`,
      `TALLY_OUTBOX=${OUTBOX_MOUNT}`,
      // Python's objects from glibc's malloc, in transparent huge pages: pymalloc hands its 1 MiB
      // arenas back to the OS and faults them in again 4 KiB at a time, which made a million
      // strings of an extract cost 0.21-0.26 s instead of 0.02 s on a VM.
      'PYTHONMALLOC=malloc',
      'GLIBC_TUNABLES=glibc.malloc.hugetlb=1',
    ],
    Labels: {
      [LABELS.managed]: 'true',
      [LABELS.instance]: options.instance,
      [LABELS.kernel]: options.kernelId,
      [LABELS.session]: options.sessionId,
    },
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: false,
    Tty: false,
    NetworkDisabled: true,
    HostConfig: {
      ...(options.runtime ? { Runtime: options.runtime } : {}),
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': `rw,nosuid,nodev,noexec,size=${limits.tmpMb}m,mode=1777` },
      // The session's own folders are its only host mounts.
      Binds: [
        `${options.workHostPath}:${WORKSPACE_MOUNT}:rw`,
        `${options.inputsHostPath}:${INPUTS_MOUNT}:ro`,
        `${options.outboxHostPath}:${OUTBOX_MOUNT}:rw`,
      ],
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      IpcMode: 'private',
      Memory: limits.memoryMb * MIB,
      MemorySwap: limits.memoryMb * MIB,
      NanoCpus: Math.round(limits.cpus * 1e9),
      PidsLimit: gvisor ? Math.max(limits.pidsLimit, GVISOR_HOST_THREADS) : limits.pidsLimit,
      OomScoreAdj: 500,
      Ulimits: [
        { Name: 'nofile', Soft: 1024, Hard: 1024 },
        { Name: 'core', Soft: 0, Hard: 0 },
        // Writes past it fail with EFBIG (Python ignores SIGXFSZ; other programs are stopped by it).
        { Name: 'fsize', Soft: fileSizeBytes, Hard: fileSizeBytes },
        // gVisor counts RLIMIT_NPROC per sandbox (its own kernel); under runc it would count user 10001's
        // processes in every container of the host, so there the pids cgroup holds them instead. A process
        // forked from the kernel costs ~20 MiB under gVisor (~1 under runc): a fork bomb there runs out of
        // memory before this cap, and the kernel is restarted and replayed like any out-of-memory death.
        ...(gvisor ? [{ Name: 'nproc', Soft: limits.pidsLimit, Hard: limits.pidsLimit }] : []),
      ],
      RestartPolicy: { Name: 'no' },
      // stdout is the reply channel: a logging driver would copy every reply (and any flood user code
      // writes) to the host's disk without limit. The attached stream does not need one.
      LogConfig: { Type: 'none', Config: {} },
    },
  };
}
