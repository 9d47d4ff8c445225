/**
 * Errors of the files people write for tally (schedules, knowledge, the access policy): every problem listed by
 * entry and field, so one round of edits fixes them all; errors.ts re-exports them.
 */
import { AppError } from './app-error.js';

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
