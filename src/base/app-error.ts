/**
 * The base of tally's infrastructure errors: a code, structured details and a message that names the
 * setting or environment variable to change. The errors themselves are reached through errors.ts, which holds
 * some and re-exports the families beside it (sandbox-, database-, file- and llm-errors.ts).
 */

export type ErrorCode =
  | 'CONFIG_INVALID'
  | 'SANDBOX_ENGINE_UNAVAILABLE'
  | 'SANDBOX_IMAGE_MISSING'
  | 'SANDBOX_RUNTIME_MISSING'
  | 'SANDBOX_WORKSPACE_HIDDEN'
  | 'KERNEL_START_FAILED'
  | 'KERNEL_CLOSED'
  | 'WORKSPACE_PATH_INVALID'
  | 'WORKSPACE_FILE_TOO_LARGE'
  | 'WORKSPACE_FULL'
  | 'DATABASE_UNAVAILABLE'
  | 'SQL_REJECTED'
  | 'QUERY_FAILED'
  | 'QUERY_TIMEOUT'
  | 'QUERY_CANCELLED'
  | 'EXTRACT_TOO_LARGE'
  | 'EXTRACT_FAILED'
  | 'STORE_UNAVAILABLE'
  | 'LOCK_TIMEOUT'
  | 'TELCO_ARGUMENT_INVALID'
  | 'TELCO_CSV_INVALID'
  | 'TELCO_DATABASE_UNREACHABLE'
  | 'TELCO_DATABASE_REFUSED'
  | 'PROMPT_FILE_INVALID'
  | 'DATABASE_ACCOUNT_NOT_READONLY'
  | 'EVAL_BUDGET_EXCEEDED'
  | 'EVAL_INPUT_INVALID'
  | 'SCHEDULES_INVALID'
  | 'POLICY_INVALID'
  | 'POLICY_VIEWS_OUTDATED'
  | 'KNOWLEDGE_INVALID'
  | 'LLM_NOT_CONFIGURED'
  | 'LLM_RATE_LIMITED'
  | 'LLM_UNAVAILABLE'
  | 'LLM_AUTH_FAILED'
  | 'LLM_REQUEST_INVALID'
  | 'LLM_RESPONSE_INVALID'
  | 'LLM_TIMEOUT'
  | 'LLM_TOOLS_UNSUPPORTED'
  | 'LLM_CANCELLED';

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
