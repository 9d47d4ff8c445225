/**
 * Infrastructure errors: thrown, coded, with structured fields and a message that names the
 * setting or environment variable to change. Model mistakes and user-code errors are not thrown:
 * they travel as data (tool results, `Execution.error`). The tree's one entry point: it re-exports
 * the base (app-error.ts) and the families kept beside it (sandbox-, database-, file- and
 * llm-errors.ts), and holds the rest: configuration, the store, prompts, evaluation, policy views.
 */

import { AppError } from './app-error.js';

export { AppError, type ErrorCode } from './app-error.js';
export * from './database-errors.js';
export * from './file-errors.js';
export * from './llm-errors.js';
export * from './sandbox-errors.js';

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
