/** What a tool is to the agent: a name, a schema for its arguments, and what running it does. */
import type { z } from 'zod';
import type { Post } from '../ports/chat.js';
import type { Database } from '../ports/database.js';
import type { Kernel } from '../ports/sandbox.js';

export interface ToolContext {
  /** The session's kernel, started on first use. */
  kernel: () => Promise<Kernel>;
  databases: Database[];
  /** Posts to the thread (charts, previews) while the turn runs. */
  emit: (post: Post) => Promise<void>;
  signal: AbortSignal;
  /** Drafts recorded by `draft_section`, kept with the session. */
  drafts: Array<{ title: string; markdown: string }>;
  /** Keeps what rebuilt the kernel's state, so a new kernel can be brought back to it. */
  record: (entry: KernelJournalEntry) => Promise<void>;
}

/**
 * How a kernel's state can be rebuilt: cells that ran successfully, and extractions (their files do
 * not outlive the kernel, so they are run again from the database).
 */
export type KernelJournalEntry =
  | { kind: 'python'; code: string }
  | { kind: 'extract'; database: string; sql: string; name: string };

export interface ToolOutcome {
  /** What the model reads as the tool's result. */
  content: string;
  /** The tool did not do its job (user-code error, rejected SQL): counts towards the repair limit. */
  failed?: boolean;
  /** The turn pauses here until the user answers (ask_user). */
  question?: { text: string; choices?: string[] };
}

export interface AgentTool<A = unknown> {
  name: string;
  description: string;
  schema: z.ZodType<A>;
  execute(args: A, context: ToolContext): Promise<ToolOutcome>;
}

/** Declares a tool with its argument type inferred from the schema. */
export function defineTool<S extends z.ZodType>(tool: {
  name: string;
  description: string;
  schema: S;
  execute(args: z.infer<S>, context: ToolContext): Promise<ToolOutcome>;
}): AgentTool<z.infer<S>> {
  return tool as unknown as AgentTool<z.infer<S>>;
}

/** The named database, or the first one; an unknown name is the model's mistake. */
export function pickDatabase(databases: Database[], name: string | undefined): Database | string {
  const database = name === undefined ? databases[0] : databases.find((candidate) => candidate.name === name);
  if (database) return database;
  return `No database named '${name}'. Databases: ${databases.map((candidate) => candidate.name).join(', ')}.`;
}
