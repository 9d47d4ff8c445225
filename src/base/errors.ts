/**
 * Infrastructure errors: thrown, coded, with structured fields and a message that names the
 * setting or environment variable to change. Model mistakes and user-code errors are not thrown:
 * they travel as data (tool results, `Execution.error`).
 */

import { AppError } from './app-error.js';

export { AppError, type ErrorCode } from './app-error.js';
export * from './llm-errors.js';

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

/** The state store cannot be used: Redis does not answer, or the local SQLite file cannot be opened. */
export class StoreUnavailableError extends AppError {
  constructor(location: string, reason: string, cause?: unknown) {
    const setting = /^rediss?:/.test(location)
      ? 'Check REDIS_URL and that the Redis server runs'
      : 'Check that TALLY_HOME is writable, or set REDIS_URL';
    super('STORE_UNAVAILABLE', `The store at ${location} cannot be used: ${reason}. ${setting}.`, {
      details: { location },
      cause,
    });
  }
}

export class LockTimeoutError extends AppError {
  constructor(name: string, waitMs: number, holder?: string) {
    super(
      'LOCK_TIMEOUT',
      `Lock '${name}' is still held${holder === undefined ? '' : ` by ${holder}`} after waiting ${waitMs} ms. Retry later, or wait longer (withLock option waitMs).`,
      { details: { name, waitMs, ...(holder === undefined ? {} : { holder }) } },
    );
  }
}

export class PromptFileError extends AppError {
  constructor(file: string, problem: string) {
    super('PROMPT_FILE_INVALID', `Prompt file ${file} is invalid: ${problem}. Fix the file (see prompts/README.md).`, {
      details: { file },
    });
  }
}

/** An evaluation case used up its token budget: its turn is stopped, the run goes on. */
export class EvalBudgetError extends AppError {
  constructor(tokens: number, budget: number) {
    super(
      'EVAL_BUDGET_EXCEEDED',
      `This case used ${tokens} tokens, over its budget of ${budget} (tally eval --case-tokens).`,
      { details: { tokens, budget } },
    );
  }
}

/** A bad `tally eval` argument or suite file; the message names the flag or the file. */
export class EvalInputError extends AppError {
  constructor(message: string) {
    super('EVAL_INPUT_INVALID', message);
  }
}

/** A database account that can do more than read its schema, with TALLY_REQUIRE_READONLY on. */
export class DatabaseAccountNotReadonlyError extends AppError {
  constructor(findings: Array<{ variable: string; database: string; problem: string; grant: string }>) {
    const first = findings[0];
    const more = findings.length > 1 ? ` (and ${findings.length - 1} more grants; see the warnings)` : '';
    super(
      'DATABASE_ACCOUNT_NOT_READONLY',
      `The ${first?.database} account (${first?.variable}) ${first?.problem}: ${first?.grant}${more}. Use an account that can only SELECT from its schema, or set TALLY_REQUIRE_READONLY=false.`,
      { details: { findings } },
    );
  }
}

/** One problem of a file people write (schedules, the access policy), by entry and field. */
export interface FileIssue {
  /** `'weekly-churn'`, `entry 3` (1-based), `grants[2]`, `principals.analysts`, or `(file)` for the whole file. */
  entry: string;
  /** The field at fault, e.g. `cron`, `to.0`; empty for the entry as a whole. */
  field: string;
  message: string;
}

export type ScheduleIssue = FileIssue;
export type PolicyIssue = FileIssue;

/** `file` is invalid: every issue on a line of its own, so one round of edits fixes them all. */
function invalidFileMessage(file: string, issues: readonly FileIssue[]): string {
  const lines = issues.map((issue) => `  ${issue.entry}${issue.field ? `, ${issue.field}` : ''}: ${issue.message}`);
  return `${file} is invalid; fix these entries:\n${lines.join('\n')}`;
}

/** The schedules file (TALLY_SCHEDULES) cannot be read or is invalid; every problem is listed. */
export class ScheduleFileError extends AppError {
  readonly issues: readonly ScheduleIssue[];

  constructor(path: string, issues: ScheduleIssue[]) {
    super('SCHEDULES_INVALID', invalidFileMessage(`The schedules file ${path} (TALLY_SCHEDULES)`, issues), {
      details: { path, issues },
    });
    this.issues = issues;
  }
}

/** A knowledge folder (TALLY_KNOWLEDGE_DIR) holds a file that cannot be read or is invalid; every problem is listed. */
export class KnowledgeFileError extends AppError {
  readonly issues: readonly FileIssue[];

  constructor(path: string, issues: FileIssue[]) {
    super('KNOWLEDGE_INVALID', invalidFileMessage(`The knowledge file ${path} (TALLY_KNOWLEDGE_DIR)`, issues), {
      details: { path, issues },
    });
    this.issues = issues;
  }
}

/** The access policy file (TALLY_POLICY) cannot be read or is invalid; every problem is listed. */
export class PolicyFileError extends AppError {
  readonly issues: readonly PolicyIssue[];

  constructor(path: string, issues: PolicyIssue[]) {
    super('POLICY_INVALID', invalidFileMessage(`The access policy ${path} (TALLY_POLICY)`, issues), {
      details: { path, issues },
    });
    this.issues = issues;
  }
}

/** What `tally policy apply` made no longer matches the policy: start-up stops rather than read through less. */
export class PolicyViewsError extends AppError {
  constructor(problems: ReadonlyArray<{ database: string; problem: string }>) {
    const lines = problems.map(({ database, problem }) => `  ${database}: ${problem}`);
    const names = [...new Set(problems.map(({ database }) => database))];
    super(
      'POLICY_VIEWS_OUTDATED',
      `The database views of the access policy (TALLY_POLICY) do not match it:\n${lines.join('\n')}\nRun ${names.map((name) => `tally policy apply --admin-url URL --db ${name}`).join(' and ')} (README: Who sees what).`,
      { details: { problems } },
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
