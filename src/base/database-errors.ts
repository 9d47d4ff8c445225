/**
 * Errors of the configured databases: one that cannot be reached or whose account can do more than read, and a
 * statement rejected, failed, timed out or cancelled, or an extract too large to load. Each names the setting to
 * change (DATABASE_URL, TALLY_QUERY_TIMEOUT_MS, TALLY_EXTRACT_*…); errors.ts re-exports them.
 */
import { AppError } from './app-error.js';

export class DatabaseUnavailableError extends AppError {
  constructor(database: string, reason: string, cause?: unknown) {
    super(
      'DATABASE_UNAVAILABLE',
      `Database '${database}' cannot be reached: ${reason}. Check DATABASE_URL (or DATABASE_URL_<NAME>) and that the server runs.`,
      { details: { database }, cause },
    );
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
