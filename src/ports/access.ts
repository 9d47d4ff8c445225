/**
 * The access port: what the sender of a message may read, decided below the model by the access policy
 * (src/policy/). Sessions ask it for the databases a turn may use; they never see the policy itself.
 */
import type { Inbound, Viewer } from './chat.js';
import type { Database } from './database.js';

/** How every refusal of the access policy to a person begins (so `tally ask` can tell it from an answer). */
export const NOT_GRANTED_TEXT = 'Not granted by the access policy';

/** How a column reaches a person: as it is, pseudonymised, always NULL, or not at all. */
export type ColumnAccess = 'raw' | 'hash' | 'redact' | 'denied';

/** A table as a statement read it: the reader's view of every column. */
export interface TableRead {
  database: string;
  table: string;
  columns: Record<string, ColumnAccess>;
}

/** What a thread's turns have read: `database/table` → column → the widest view it was read through. */
export type UsedGrants = Record<string, Record<string, ColumnAccess>>;

/**
 * What something derived from a thread (a saved playbook, a verified query, a knowledge piece, a report) came from:
 * the thread, and what that thread had read when it was derived. Its text may quote any of that (a Python cell's
 * output names no table), so it is offered only to people who may read all of it, there.
 */
export interface Derivation {
  /** The thread's key; absent when it is no longer known. */
  thread?: string;
  /**
   * What the thread had read. Absent: not known (saved before tally recorded it, or while no access policy was
   * set), so under a policy it is offered to no one.
   */
  grantsUsed?: UsedGrants;
}

/** What the person a turn works for may read, asked of what is derived from data; never the policy itself. */
export interface Reader {
  /** Whether they hold every grant `used` names, here: each table, and each column at least as wide. */
  mayRead(used: UsedGrants): boolean;
}

export type MessageAccess =
  /**
   * The databases the sender may read here, each enforcing the policy and telling `onUsed` what the thread has now
   * read; and what they may read, for what is derived from data.
   */
  | { databases: Database[]; reader: Reader }
  /**
   * The sender may not work in this thread: why, for the thread, and what it has read that they may not (empty
   * when nothing at all is granted to them here).
   */
  | { refusal: string; missing: string[] };

export interface AccessControl {
  forMessage(
    inbound: Pick<Inbound, 'threadKey' | 'user' | 'place'>,
    used: UsedGrants | undefined,
    onUsed: (used: UsedGrants) => Promise<void>,
  ): MessageAccess;
  /** Whether `viewer` may see a thread that read `used` (its summary, its exports), there. */
  mayView(viewer: Viewer, used: UsedGrants | undefined): boolean;
  /** The names of the databases `viewer` may read there. */
  databaseNames(viewer: Viewer): string[];
}
