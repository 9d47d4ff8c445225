/**
 * Approval mode (`approve: never|risky|always`): a tool that runs code is wrapped so that, when the
 * mode asks for it, the call is held and the turn pauses with Run / Edit / Skip instead of running.
 * `always` holds every Python cell and every extraction; `risky` only installs, shell escapes, writes
 * outside the workspace, likely long runs (risk.ts) and extractions above the row budget.
 */
import { z } from 'zod';
import type { Database } from '../ports/database.js';
import type { LogEvent } from './log-event.js';
import type { Pause } from './pause.js';
import { assessCode, assessExtract } from './risk.js';
import { type AgentTool, pickDatabase, type ToolContext } from './tool.js';

export type ApprovalMode = 'never' | 'risky' | 'always';
export const APPROVAL_MODES = ['never', 'risky', 'always'] as const satisfies readonly ApprovalMode[];

export interface ApprovalPolicy {
  mode: ApprovalMode;
  /** `risky`: extractions estimated above this many rows ask first. */
  extractBudgetRows: number;
}

/** Tools that approval mode can hold, and where their code is in the arguments. */
export const HELD_TOOLS: Record<string, { language: 'python' | 'sql'; field: 'code' | 'sql' }> = {
  run_python: { language: 'python', field: 'code' },
  load_dataframe: { language: 'sql', field: 'sql' },
};

const heldArguments = z.object({
  code: z.string().optional(),
  sql: z.string().optional(),
  database: z.string().optional(),
});

export function gated(tool: AgentTool, policy: ApprovalPolicy): AgentTool {
  const held = HELD_TOOLS[tool.name];
  if (!held || policy.mode === 'never') return tool;
  return {
    ...tool,
    async execute(args, context) {
      const fields = heldArguments.parse(args);
      const code = fields[held.field] ?? '';
      const reason =
        policy.mode === 'always'
          ? 'approval mode is always'
          : held.language === 'python'
            ? assessCode(code)
            : assessExtract(
                await estimateRows(context.databases, fields.database, code, context.signal),
                policy.extractBudgetRows,
              );
      if (!reason) return tool.execute(args, context);
      return {
        content: 'Not run: waiting for approval.',
        pause: {
          kind: 'approval',
          tool: tool.name,
          arguments: JSON.stringify(args),
          language: held.language,
          code,
          reason,
        },
      };
    },
  };
}

/** Rows an extraction would load, by counting them in the database; undefined when that fails. */
async function estimateRows(
  databases: Database[],
  name: string | undefined,
  sql: string,
  signal: AbortSignal,
): Promise<number | undefined> {
  const database = pickDatabase(databases, name);
  if (typeof database === 'string') return undefined;
  try {
    const inner = sql.trim().replace(/;\s*$/, '');
    const result = await database.query(`SELECT COUNT(*) AS n FROM (${inner}) AS counted`, { maxRows: 1, signal });
    const value = Number(result.rows[0]?.[0]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined; // the extraction itself will report a bad query
  }
}

export interface ApprovalDecision {
  decision: 'run' | 'skip' | 'edit';
  user: string;
  /** Edit: the code to run instead. */
  code?: string;
  /** Skip: what the person said, for the model. */
  note?: string;
}

/**
 * Runs (or skips) a held call as decided, and returns the call's result for the model. An edit runs
 * the person's code, logged as a human edit and recorded as a cell they wrote.
 */
export async function runHeldCall(
  held: Extract<Pause, { kind: 'approval' }>,
  decision: ApprovalDecision,
  tool: AgentTool | undefined,
  context: ToolContext,
  log: (event: LogEvent) => Promise<void>,
): Promise<string> {
  await log({ kind: 'approval', user: decision.user, decision: decision.decision, code: held.code });
  if (decision.decision === 'skip') {
    return `The user skipped this cell; it did not run.${decision.note ? ` They said: ${decision.note}` : ''} Do not run it again unless they ask.`;
  }
  const where = HELD_TOOLS[held.tool];
  if (!tool || !where) return `The held call to ${held.tool} can no longer run.`;
  const args = JSON.parse(held.arguments) as Record<string, unknown>;
  const edited = decision.decision === 'edit' && decision.code !== undefined && decision.code !== held.code;
  if (edited) {
    args[where.field] = decision.code;
    await log({ kind: 'edit', user: decision.user, original: held.code, edited: decision.code ?? '' });
  }
  await context.emit({ kind: 'status', text: `running the ${edited ? 'edited' : 'approved'} ${where.language} cell` });
  const outcome = await tool.execute(args, { ...context, author: edited ? 'human' : 'model' });
  return edited
    ? `The user edited the code before it ran. What ran:\n${decision.code}\n\nResult:\n${outcome.content}`
    : outcome.content;
}
