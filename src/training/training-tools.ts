/**
 * The tools a training example may call, as OpenAI function definitions (JSON Schema parameters):
 * exactly the agent's own tools (src/agent/tools), so a fine-tuned model learns the calls it will
 * make in production.
 */
import { toolSpec } from '../agent/tool-schema.js';
import { loadDataframe, runSql } from '../agent/tools/database-tools.js';
import { draftSection, runPython } from '../agent/tools/kernel-tools.js';

/** An OpenAI function-tool definition: `{type: 'function', function: {name, description, parameters}}`. */
export interface ToolDefinition {
  type: 'function';
  function: {
    name: TrainingToolName;
    description: string;
    /** A JSON Schema object. */
    parameters: Record<string, unknown>;
  };
}

/** The tools training examples use, in the order they are listed in an example's `tools`. */
export type TrainingToolName = 'run_sql' | 'load_dataframe' | 'run_python' | 'draft_section';

/** Derived from the agent's own tools, so the training data can never drift from what the agent calls. */
const definitions = Object.fromEntries(
  [runSql, loadDataframe, runPython, draftSection].map((tool) => [
    tool.name,
    { ...toolSpec(tool.name, tool.description, tool.schema), name: tool.name as TrainingToolName },
  ]),
) as Record<TrainingToolName, ToolDefinition['function']>;

const ORDER: TrainingToolName[] = ['run_sql', 'load_dataframe', 'run_python', 'draft_section'];

/** The definitions of `names`, each once, in a fixed order (so identical examples serialise identically). */
export function toolDefinitions(names: Iterable<TrainingToolName>): ToolDefinition[] {
  const wanted = new Set(names);
  return ORDER.filter((name) => wanted.has(name)).map((name) => ({ type: 'function', function: definitions[name] }));
}
