/**
 * Errors of the telco loader. Like `AppError` in src/errors.ts they carry a code, structured details
 * and a message that names what to change, here the command-line flag (`--target`, `--csv`, ...),
 * because the loader is run by hand or from the demo, not configured through the environment.
 */

export type TelcoErrorCode =
  /** A flag or option is missing or malformed. */
  | 'TELCO_ARGUMENT_INVALID'
  /** The CSV given with `--csv` cannot be read or is not in the IBM format. */
  | 'TELCO_CSV_INVALID'
  /** No database server answers at the target. */
  | 'TELCO_DATABASE_UNREACHABLE'
  /** The server answered but refused the login or a statement. */
  | 'TELCO_DATABASE_REFUSED';

/** A loader failure whose message is one line, fit to print as is. */
export class TelcoError extends Error {
  readonly code: TelcoErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: TelcoErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** Shorthand for the most common case: a bad flag value. */
export function invalidArgument(flag: string, problem: string): TelcoError {
  return new TelcoError('TELCO_ARGUMENT_INVALID', `${flag}: ${problem}`, { details: { flag } });
}
