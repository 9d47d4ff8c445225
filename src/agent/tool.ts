/** What a tool is to the agent: a name, a schema for its arguments, and what running it does. */
import type { z } from 'zod';
import type { Post } from '../ports/chat.js';
import type { Database } from '../ports/database.js';
import type { Knowledge } from '../ports/knowledge.js';
import type { Kernel } from '../ports/sandbox.js';
import type { Author, Cell, FigureCheck } from '../report/report.js';
import type { FigureReview } from './grounding/figure-review.js';
import type { Pause } from './pause.js';

export interface ToolContext {
  /** The session's kernel, started on first use. */
  kernel: () => Promise<Kernel>;
  databases: Database[];
  /** Posts to the thread (charts, previews) while the turn runs. */
  emit: (post: Post) => Promise<void>;
  signal: AbortSignal;
  /** The work behind the next report section, and the report's drafts. */
  work: Workbench;
  /** Who wrote the code the tool runs now: the model, or a person who edited it before it ran. */
  author: Author;
  /** Keeps what rebuilt the kernel's state, so a new kernel can be brought back to it. */
  record: (entry: KernelJournalEntry) => Promise<void>;
  /** Told the rows an extraction has received so far (the turn's progress shows them). */
  onRows?: (rows: number) => void;
  /** The tool call running now: the cells it keeps name it, so a figure can point at its result. */
  callId?: string;
  /** Checks the figures of a section draft against the thread's results before it is posted. */
  reviewFigures?: FigureReview;
  /** The knowledge store, for verified queries. */
  knowledge?: Knowledge;
  /**
   * What a request triage found multi-step follows, as messages: the playbook that fits it and its plan (which
   * becomes the turn's plan). Absent when the thread always plans: it was given before the work.
   */
  guidance?: () => Promise<string[]>;
}

/** A cell as a tool reports it; author, figures and time are filled in by the workbench. */
export type WorkCell = Omit<Cell, 'author' | 'figures' | 'ranAt'>;

/** A section draft as recorded, with what its review request shows. */
export interface DraftedSection {
  section: string;
  version: number;
  title: string;
  stage?: string;
  narrative: string;
  cells: Cell[];
  figures: Array<{ title: string; png: Buffer; alt: string }>;
}

export interface Workbench {
  /**
   * Keeps a cell that ran, with its charts, as work behind the next section (and logs it). A failed
   * cell is only logged: the report keeps what worked.
   */
  addCell(
    cell: WorkCell,
    figures: Array<{ png: Buffer; title: string; alt: string }>,
    ok: boolean,
    author: Author,
  ): Promise<void>;
  /**
   * Turns the work since the last draft into a section draft, or into a new version of the section
   * awaiting revision (`revises`, or the one section that awaits it).
   */
  draft(input: {
    title: string;
    narrative: string;
    stage?: string;
    revises?: string;
    /** The narrative's figures as checked against the thread's results. */
    checks?: FigureCheck[];
  }): Promise<DraftedSection>;
}

/**
 * How a kernel's state can be rebuilt: cells that ran successfully, and extractions (their files do
 * not outlive the kernel, so they are run again from the database).
 */
export type KernelJournalEntry =
  | { kind: 'python'; code: string }
  | { kind: 'extract'; database: string; sql: string; name: string }
  /** A file a person shared, delivered at `/inputs/<path>`; its bytes are kept in the store under `key`. */
  | { kind: 'file'; path: string; key: string };

export interface ToolOutcome {
  /** What the model reads as the tool's result. */
  content: string;
  /** The tool did not do its job (user-code error, rejected SQL): counts towards the repair limit. */
  failed?: boolean;
  /** The turn pauses here until a person answers, decides or approves; the call's result comes then. */
  pause?: Pause;
  /** The turn ends here, with no answer of the model's: triage found the data cannot answer the request. */
  end?: { kind: 'out_of_scope'; reason: string };
  /** Messages (from the user's side) that follow the reply's tool results: what a multi-step request follows. */
  messages?: string[];
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

/** The cell's link to the tool call that ran it, when there is one. */
export const callOf = (context: ToolContext): { call?: string } => (context.callId ? { call: context.callId } : {});

/** The named database, or the first one; an unknown name is the model's mistake. */
export function pickDatabase(databases: Database[], name: string | undefined): Database | string {
  const database = name === undefined ? databases[0] : databases.find((candidate) => candidate.name === name);
  if (database) return database;
  return `No database named '${name}'. Databases: ${databases.map((candidate) => candidate.name).join(', ')}.`;
}
