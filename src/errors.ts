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
  | 'WORKSPACE_FILE_TOO_LARGE'
  | 'DATABASE_UNAVAILABLE'
  | 'SQL_REJECTED'
  | 'QUERY_FAILED'
  | 'QUERY_TIMEOUT'
  | 'QUERY_CANCELLED'
  | 'EXTRACT_TOO_LARGE'
  | 'EXTRACT_FAILED'
  | 'TELCO_ARGUMENT_INVALID'
  | 'TELCO_CSV_INVALID'
  | 'TELCO_DATABASE_UNREACHABLE'
  | 'TELCO_DATABASE_REFUSED';

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

export class DatabaseUnavailableError extends AppError {
  constructor(database: string, reason: string, cause?: unknown) {
    super(
      'DATABASE_UNAVAILABLE',
      `Database '${database}' cannot be reached: ${reason}. Check DATABASE_URL (or DATABASE_URL_<NAME>) and that the server runs.`,
      { details: { database }, cause },
    );
  }
}

/**
 * The errors below describe a mistake in the SQL or the request, not a broken system: the agent's
 * tools hand their messages back to the model, which can correct itself.
 */
export class SqlRejectedError extends AppError {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super('SQL_REJECTED', message, { details: { reason } });
  }
}

export class QueryFailedError extends AppError {
  constructor(database: string, serverMessage: string, cause?: unknown) {
    super('QUERY_FAILED', `The query failed on '${database}': ${serverMessage}`, { details: { database }, cause });
  }
}

export class QueryTimeoutError extends AppError {
  constructor(timeoutMs: number) {
    super(
      'QUERY_TIMEOUT',
      `The query ran longer than ${timeoutMs} ms and was stopped. Narrow or aggregate it in SQL, or raise the limit (query option timeoutMs, default TALLY_QUERY_TIMEOUT_MS).`,
      { details: { timeoutMs } },
    );
  }
}

export class QueryCancelledError extends AppError {
  constructor() {
    super('QUERY_CANCELLED', 'The query was cancelled.');
  }
}

export class ExtractTooLargeError extends AppError {
  constructor(limit: 'rows' | 'bytes', value: number) {
    const setting =
      limit === 'rows' ? 'maxRows (default TALLY_EXTRACT_MAX_ROWS)' : 'maxBytes (default TALLY_EXTRACT_MAX_BYTES)';
    super(
      'EXTRACT_TOO_LARGE',
      `The result is larger than the extract budget of ${value} ${limit}. Filter, sample or aggregate in SQL first, or raise the limit (extract option ${setting}).`,
      { details: { limit, value } },
    );
  }
}

export class ExtractFailedError extends AppError {
  constructor(reason: string, details: Record<string, unknown> = {}) {
    super('EXTRACT_FAILED', `The extract could not be loaded into the kernel: ${reason}`, { details });
  }
}
