/**
 * Errors of the sandbox: the Docker engine, its image and runtime, a kernel that did not start or was disposed, and
 * the session's workspace (paths, sizes, the disk quota). Each names the setting to change (DOCKER_HOST,
 * TALLY_SANDBOX_*); errors.ts re-exports them.
 */
import { AppError } from './app-error.js';

export class SandboxEngineUnavailableError extends AppError {
  constructor(endpoint: string, cause: unknown) {
    super(
      'SANDBOX_ENGINE_UNAVAILABLE',
      `No Docker engine answers at ${endpoint}. Start one (npm run setup does it on Debian as root) or set DOCKER_HOST.`,
      { details: { endpoint }, cause },
    );
  }
}

export class SandboxImageMissingError extends AppError {
  constructor(image: string) {
    super(
      'SANDBOX_IMAGE_MISSING',
      `Sandbox image ${image} is not built. Run 'npm run setup' to build it, or set TALLY_SANDBOX_IMAGE to an existing image.`,
      { details: { image } },
    );
  }
}

/** TALLY_SANDBOX_RUNTIME names a runtime the Docker engine does not list. */
export class SandboxRuntimeMissingError extends AppError {
  constructor(runtime: string, listed: readonly string[]) {
    super(
      'SANDBOX_RUNTIME_MISSING',
      `TALLY_SANDBOX_RUNTIME=${runtime}, but the Docker engine lists only ${listed.join(', ') || 'no runtime'}. Register it with the engine (runtimes in /etc/docker/daemon.json, then reload dockerd), or set TALLY_SANDBOX_RUNTIME=auto.`,
      { details: { runtime, listed } },
    );
  }
}

/** The engine does not see tally's workspaces at their paths (tally in a container, or a remote engine). */
export class SandboxWorkspaceHiddenError extends AppError {
  constructor(folder: string) {
    super(
      'SANDBOX_WORKSPACE_HIDDEN',
      `The Docker engine does not see ${folder}, where kernels' files go: tally runs in a container or the engine on another machine. Mount TALLY_HOME at the same path on both sides (docker run -v /var/lib/tally:/var/lib/tally -e TALLY_HOME=/var/lib/tally).`,
      { details: { folder } },
    );
  }
}

/** Why a kernel did not start: the first two pass (its start is retried), the others need a change. */
export type KernelStartFailure = 'overloaded' | 'engine' | 'out_of_memory' | 'exited';

export class KernelStartError extends AppError {
  readonly failure: KernelStartFailure;

  constructor(failure: KernelStartFailure, reason: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super('KERNEL_START_FAILED', `The sandbox kernel did not start: ${reason}. ${KERNEL_START_ADVICE[failure]}`, {
      details: { ...details, failure },
      cause,
    });
    this.failure = failure;
  }

  /** Passing trouble (a busy machine or engine): the same start may well succeed later. */
  get transient(): boolean {
    return this.failure === 'overloaded' || this.failure === 'engine';
  }
}

const KERNEL_START_ADVICE: Record<KernelStartFailure, string> = {
  overloaded:
    'The machine was too busy starting other kernels; tally tries again. If it keeps happening, lower TALLY_SANDBOX_START_CONCURRENCY or TALLY_MAX_KERNELS',
  engine:
    'The Docker engine failed the request; tally tries again. Check the engine (DOCKER_HOST) if it keeps happening',
  out_of_memory: 'It ran out of memory while starting: raise TALLY_SANDBOX_MEMORY_MB',
  exited: 'Check the image (TALLY_SANDBOX_IMAGE): its driver could not start',
};

export class KernelClosedError extends AppError {
  constructor(sessionId: string) {
    super('KERNEL_CLOSED', `The kernel of session ${sessionId} was disposed; acquire a new one.`, {
      details: { sessionId },
    });
  }
}

export class WorkspacePathError extends AppError {
  constructor(
    path: string,
    /** Why it is not allowed, e.g. `it is a link`. */
    readonly reason: string,
  ) {
    super('WORKSPACE_PATH_INVALID', `Workspace path '${path}' is not allowed: ${reason}.`, { details: { path } });
  }
}

export class WorkspaceFileTooLargeError extends AppError {
  constructor(path: string, sizeBytes: number, maxBytes: number) {
    super(
      'WORKSPACE_FILE_TOO_LARGE',
      `Workspace file '${path}' has ${sizeBytes} bytes, over the ${maxBytes}-byte limit (readFile option maxBytes).`,
      { details: { path, sizeBytes, maxBytes } },
    );
  }
}

/** The host could not deliver a file into a session: its disk quota is full. */
export class WorkspaceFullError extends AppError {
  constructor(diskMb: number, path: string, cause?: unknown) {
    super(
      'WORKSPACE_FULL',
      `The session's disk quota of ${diskMb} MB is full, so ${path} could not be delivered: delete files in /workspace, or raise TALLY_SANDBOX_DISK_MB.`,
      { details: { diskMb, path }, cause },
    );
  }
}
