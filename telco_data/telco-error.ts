/**
 * Errors of the telco loader: `AppError`s whose message names the command-line flag to change
 * (`--target`, `--csv`, ...), because the loader is run by hand or from the demo, not configured
 * through the environment.
 */
import { AppError, type ErrorCode } from '../src/base/errors.js';

export type TelcoErrorCode = Extract<ErrorCode, `TELCO_${string}`>;

/** A loader failure whose message is one line, fit to print as is. */
export class TelcoError extends AppError {
  declare readonly code: TelcoErrorCode;

  constructor(
    code: TelcoErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, options);
  }
}

/** Shorthand for the most common case: a bad flag value. */
export function invalidArgument(flag: string, problem: string): TelcoError {
  return new TelcoError('TELCO_ARGUMENT_INVALID', `${flag}: ${problem}`, { details: { flag } });
}
