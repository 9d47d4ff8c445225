/**
 * The sandbox's start-up on this host, before any kernel starts: the engine answers, the image is
 * there, the container runtime is chosen, what an earlier run of this instance left is reaped, the
 * engine sees the workspace folder, and the per-session disk quota is tried once.
 */
import type Docker from 'dockerode';
import {
  SandboxEngineUnavailableError,
  SandboxImageMissingError,
  SandboxWorkspaceHiddenError,
} from '../src/base/errors.js';
import { engineSeesFolder, type VisibilityProbe } from './engine-visibility.js';
import { LoopFilesystem } from './loop-filesystem.js';
import { type ReapOptions, reapOrphans } from './reap-orphans.js';
import { resolveRuntime } from './sandbox-runtime.js';

export interface SandboxHostOptions extends ReapOptions {
  /** The sandbox image; start-up fails when the engine does not have it. */
  image: string;
  /** TALLY_SANDBOX_RUNTIME (see DockerSandboxOptions.runtime). Default `auto`. */
  runtime?: string;
  /** TALLY_SANDBOX_DISK_MB (see DockerSandboxOptions.diskMb). Default 2048. */
  diskMb?: number;
}

/** What start-up found out about the host. */
export interface SandboxHost {
  /** The container runtime kernels run under (`runsc`, `runc`, …). */
  runtime: string;
  /** Each session's disk quota in MiB, or undefined where this host cannot enforce one. */
  diskMb: number | undefined;
}

export async function prepareSandboxHost(options: SandboxHostOptions): Promise<SandboxHost> {
  await options.docker.ping().catch((error: unknown) => {
    throw new SandboxEngineUnavailableError(describeEndpoint(options.docker), error);
  });
  await options.docker
    .getImage(options.image)
    .inspect()
    .catch(() => {
      throw new SandboxImageMissingError(options.image);
    });
  const runtime = await resolveRuntime(options.docker, options.runtime ?? 'auto');
  await reapOrphans(options);
  const probe: VisibilityProbe = { docker: options.docker, image: options.image, instance: options.instance };
  if (!(await engineSeesFolder(probe, options.workspaceRoot))) {
    throw new SandboxWorkspaceHiddenError(options.workspaceRoot);
  }
  const diskMb = await tryDiskQuota(options, probe);
  // Said once the sandbox can start, so a start-up that fails says only why.
  if (runtime.warning) options.logger.warn({ runtime: runtime.name }, runtime.warning);
  else options.logger.info({ runtime: runtime.name }, 'kernels run under this container runtime');
  return { runtime: runtime.name, diskMb };
}

/**
 * Tries the disk quota's mechanism once. Where it fails, sessions still start, on plain folders:
 * a laptop with rootless Docker or Docker Desktop keeps working, and the warning says what is lost
 * (the per-file limit still holds).
 */
async function tryDiskQuota(options: SandboxHostOptions, probe: VisibilityProbe): Promise<number | undefined> {
  const diskMb = options.diskMb ?? 2048;
  const failure = await LoopFilesystem.probe(options.workspaceRoot, async (inside) => {
    if (await engineSeesFolder(probe, inside)) return undefined;
    return `the Docker engine does not see filesystems mounted in ${options.workspaceRoot}: mount TALLY_HOME into tally's container with bind propagation rshared (on a shared mount on the host)`;
  });
  if (failure === undefined) return diskMb;
  options.logger.warn(
    { reason: failure, diskMb },
    "TALLY_SANDBOX_DISK_MB is not enforced: tally cannot mount a filesystem per session that kernels see (it needs root, loop devices and mkfs.ext4; in a container also CAP_SYS_ADMIN, the host's /dev and shared mount propagation), so workspaces have no total quota",
  );
  return undefined;
}

function describeEndpoint(docker: Docker): string {
  const modem = docker.modem as { socketPath?: string; host?: string; port?: number };
  return modem.socketPath ? `unix://${modem.socketPath}` : `tcp://${modem.host}:${modem.port}`;
}
