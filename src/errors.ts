/**
 * Infrastructure errors: thrown, coded, with structured fields and a message that names the
 * setting or environment variable to change. Model mistakes and user-code errors are not thrown:
 * they travel as data (tool results, `Execution.error`).
 */

export type ErrorCode =
  | 'CONFIG_INVALID'
  | 'SANDBOX_ENGINE_UNAVAILABLE'
  | 'SANDBOX_IMAGE_MISSING'
  | 'KERNEL_START_FAILED'
  | 'KERNEL_CLOSED'
  | 'WORKSPACE_PATH_INVALID'
  | 'WORKSPACE_FILE_TOO_LARGE';

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details ?? {};
  }
}

export interface ConfigIssue {
  /** The environment variable at fault. */
  variable: string;
  message: string;
}

export class ConfigError extends AppError {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: ConfigIssue[]) {
    const lines = issues.map((issue) => `  ${issue.variable}: ${issue.message}`);
    super('CONFIG_INVALID', `Invalid configuration; change these environment variables:\n${lines.join('\n')}`, {
      details: { issues },
    });
    this.issues = issues;
  }
}

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

export class KernelStartError extends AppError {
  constructor(reason: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(
      'KERNEL_START_FAILED',
      `The sandbox kernel did not start: ${reason}. Check the image (TALLY_SANDBOX_IMAGE) and limits (TALLY_SANDBOX_MEMORY_MB).`,
      { details, cause },
    );
  }
}

export class KernelClosedError extends AppError {
  constructor(sessionId: string) {
    super('KERNEL_CLOSED', `The kernel of session ${sessionId} was disposed; acquire a new one.`, {
      details: { sessionId },
    });
  }
}

export class WorkspacePathError extends AppError {
  constructor(path: string, reason: string) {
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
