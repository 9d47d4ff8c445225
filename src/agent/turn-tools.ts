/**
 * The tools a turn offers the model: the data and kernel tools, verified queries when some are offered to the
 * reader, and triage (the model's first call on a request that is not a clear one-step question). The list is the same on every request of a
 * thread: the prompt cache reuses only an identical prefix, and the tools come first in it.
 */
import { z } from 'zod';
import type { CodeReviewOptions } from './code-review.js';
import { reviewed } from './code-review.js';
import type { AgentTool } from './tool.js';
import { describeTable, listTables, loadDataframe, runSql } from './tools/database-tools.js';
import { askUser, draftSection, runPython } from './tools/kernel-tools.js';
import { runVerifiedQuery } from './tools/knowledge-tools.js';
import { triageTool } from './triage.js';

export function turnTools(options: {
  /** `review=on`: run_python goes through a model review of its code first. */
  review?: CodeReviewOptions;
  /** Verified queries are offered to this reader: they can be run by name. */
  queries?: boolean;
  /** The reader has one database: no tool asks which. */
  oneDatabase?: boolean;
}): AgentTool[] {
  const python = options.review ? reviewed(runPython, options.review) : runPython;
  const verified = options.queries ? [runVerifiedQuery] : [];
  const tools = [
    listTables,
    describeTable,
    runSql,
    loadDataframe,
    ...verified,
    python,
    askUser,
    draftSection,
    triageTool,
  ] as AgentTool[];
  return options.oneDatabase ? tools.map(withoutDatabase) : tools;
}

/** The tool without its `database` argument (every request lists the tools, and with one database it says nothing). */
function withoutDatabase(tool: AgentTool): AgentTool {
  const { schema } = tool;
  if (!(schema instanceof z.ZodObject) || !('database' in schema.shape)) return tool;
  return { ...tool, schema: schema.omit({ database: true }) } as AgentTool;
}
