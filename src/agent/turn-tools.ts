/** The tools a turn offers the model: the data and kernel tools, a verified query when one fits. */
import type { KnowledgePiece } from '../ports/knowledge.js';
import { type CodeReviewOptions, reviewed } from './code-review.js';
import type { AgentTool } from './tool.js';
import { describeTable, listTables, loadDataframe, runSql } from './tools/database-tools.js';
import { askUser, draftSection, runPython } from './tools/kernel-tools.js';
import { runVerifiedQuery } from './tools/knowledge-tools.js';

export function turnTools(options: {
  /** `review=on`: run_python goes through a model review of its code first. */
  review?: CodeReviewOptions;
  /** The knowledge that fits the request. */
  known?: readonly KnowledgePiece[];
}): AgentTool[] {
  const python = options.review ? reviewed(runPython, options.review) : runPython;
  // Offered when a verified query fits the request: a turn without one keeps the tools it had.
  const verified = options.known?.some((piece) => piece.kind === 'query') ? [runVerifiedQuery] : [];
  return [listTables, describeTable, runSql, loadDataframe, ...verified, python, askUser, draftSection] as AgentTool[];
}
