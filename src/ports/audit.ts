/**
 * The audit port: one record per data access (a query, an extraction, a shared file, an export), per
 * model request and per deletion, with who did it and where; never message text, rows or results.
 * Records are chained by hash in the store (src/audit/), so an altered or removed record is found.
 */
import type { Database } from './database.js';

/** Who a record is about: the person a turn works for (a schedule's owner, the console user for eval). */
export interface AuditActor {
  /** The platform's user id (Slack `U…`, Discord snowflake, console user name). */
  user: string;
  /** `slack`, `discord`, `console`, `eval`, … (the thread key's first part). */
  platform: string;
  /** The thread the turn works in. */
  thread: string;
  /** The channel (`platform:team:channel`), when there is one. */
  channel?: string;
}

export type AuditKind =
  | 'query'
  | 'extract'
  /** The tables a person was shown (list_tables, the schema in the model's prompt): once per message. */
  | 'list'
  /** The columns of a table a person was shown (describe_table, the schema summary): once per table and message. */
  | 'describe'
  | 'shared-file'
  | 'export'
  | 'model'
  | 'message'
  | 'deletion'
  /** A playbook or verified query saved from a thread, for others to be offered. */
  | 'publish'
  /** A playbook, verified query or derived knowledge piece put before the model for a person. */
  | 'offer';

/** One audited event, as a component reports it; the trail adds the time, the actor and the chain. */
export interface AuditEvent {
  kind: AuditKind;
  decision: 'allowed' | 'refused';
  /** Why it was refused: `access policy`, `sql guard`, `budget`, … (the label `/metrics` counts by). */
  reason?: string;
  /** The rule that decided, in words (the access policy's explanation). */
  rule?: string;
  database?: string;
  /** The statement as the person or model wrote it (never the rewritten, masked one). */
  sql?: string;
  /** Tables read, and columns read as `table.column`. */
  tables?: string[];
  columns?: string[];
  /** Columns the access policy masked, as `table.column (hash|redact)`. */
  masked?: string[];
  /** What held the policy for this statement: the database (`database login tally_p_…`) or tally's `rewrite`. */
  enforcedBy?: string;
  rows?: number;
  bytes?: number;
  /** An extraction run again to rebuild a kernel from the thread's journal, not asked for anew. */
  replay?: true;
  /** A shared file's or an export's name. */
  file?: string;
  /** A model request: where it went and what went into it (names and sizes, never values). */
  model?: {
    endpoint: string;
    model: string;
    promptTokens: number;
    completionTokens: number;
    /** Messages sent, and the tool results among them. */
    messages: number;
    toolResults: Array<{ tool: string; bytes: number }>;
    /** The request failed or was cancelled; what was sent still went to the provider. */
    failed?: true;
  };
  /**
   * What was published or offered: its kind and name, the thread it was derived from, and whether that thread's
   * grants are known (`tables` names them as `database.table`).
   */
  derived?: {
    kind: 'playbook' | 'verified-query' | 'knowledge';
    name: string;
    /** The thread's key, or `not known`; absent: shipped with tally or written by the organisation, not derived. */
    thread?: string;
    grantsKnown: boolean;
  };
  /** A deletion: who asked, what scope, and how much went (counts only). */
  deletion?: {
    requestedBy: string;
    scope: 'user' | 'thread' | 'retention';
    target: string;
    counts: Record<string, number>;
  };
}

/** A record as kept: the event with its time and actor, its position, and its link in the chain. */
export interface AuditRecord extends AuditEvent {
  /** Position in the trail (Redis stream id, or SQLite row number). */
  id: string;
  /** ISO 8601. */
  at: string;
  actor?: AuditActor;
}

export interface AuditTrail {
  /** Runs `task` on behalf of `actor`: every record made inside it (awaited or not) carries the actor. */
  within<T>(actor: AuditActor, task: () => Promise<T>): Promise<T>;
  /** The actor of the task running now, if any. */
  actor(): AuditActor | undefined;
  /** Appends one record; resolves once it is in the store. */
  record(event: AuditEvent): Promise<void>;
  /** `database` with every statement, extraction and refusal recorded. */
  watch(database: Database): Database;
}

/** Records nothing (tools and tests that keep no trail). */
export const NO_AUDIT: AuditTrail = {
  within: (_actor, task) => task(),
  actor: () => undefined,
  record: async () => {},
  watch: (database) => database,
};
