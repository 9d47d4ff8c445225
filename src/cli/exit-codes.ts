/**
 * One exit-code table for every command: 0 done, 1 failed, 2 configuration, bad input or an unreachable
 * dependency, 3 out of scope (`ask`). The README's *Exit codes* lists it; a test runs each case it names.
 */
import { AppError, type ErrorCode } from '../base/app-error.js';

/** Errors that are the operator's to fix before tally can start or answer: exit code 2. */
export const CONFIGURATION_ERRORS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'CONFIG_INVALID',
  'DATABASE_ACCOUNT_NOT_READONLY',
  'DATABASE_UNAVAILABLE',
  'SCHEDULES_INVALID',
  'POLICY_INVALID',
  'POLICY_VIEWS_OUTDATED',
  'KNOWLEDGE_INVALID',
  'PROMPT_FILE_INVALID',
  'SANDBOX_ENGINE_UNAVAILABLE',
  'SANDBOX_IMAGE_MISSING',
  'SANDBOX_RUNTIME_MISSING',
  'SANDBOX_WORKSPACE_HIDDEN',
  'STORE_UNAVAILABLE',
  'LLM_NOT_CONFIGURED',
  'EVAL_INPUT_INVALID',
]);

export function isConfigurationError(error: unknown): error is AppError {
  return error instanceof AppError && CONFIGURATION_ERRORS.has(error.code);
}

/** The exit code of a command that ended on `error`. */
export function exitCodeOf(error: unknown): 1 | 2 {
  return isConfigurationError(error) ? 2 : 1;
}
