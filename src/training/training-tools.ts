/**
 * The tools a training example may call, as OpenAI function definitions (JSON Schema parameters).
 * They mirror the agent's own tools (src/agent/tools) so a fine-tuned model learns the calls it will
 * make in production; kept here as plain data because the training export must not depend on the
 * agent's runtime.
 */

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

const database = { type: 'string', description: 'Database name; default: the first configured database.' };

const definitions: Record<TrainingToolName, ToolDefinition['function']> = {
  run_sql: {
    name: 'run_sql',
    description: 'Run one read-only SELECT and see a preview of its rows (at most max_rows).',
    parameters: {
      type: 'object',
      properties: {
        sql: { type: 'string', minLength: 1 },
        database,
        max_rows: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
      },
      required: ['sql'],
      additionalProperties: false,
    },
  },
  load_dataframe: {
    name: 'load_dataframe',
    description:
      'Run one read-only SELECT and load all its rows into the Python kernel as a pandas DataFrame named `name`.',
    parameters: {
      type: 'object',
      properties: {
        sql: { type: 'string', minLength: 1 },
        name: { type: 'string', minLength: 1, description: 'A Python identifier, e.g. customers' },
        database,
      },
      required: ['sql', 'name'],
      additionalProperties: false,
    },
  },
  run_python: {
    name: 'run_python',
    description:
      'Run Python in the session kernel (variables persist; pandas, numpy, matplotlib, scipy, statsmodels, sklearn). ' +
      'The last expression is shown; matplotlib figures are posted to the thread.',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', minLength: 1 } },
      required: ['code'],
      additionalProperties: false,
    },
  },
  draft_section: {
    name: 'draft_section',
    description:
      'Hand in one section of the analysis report for review: a title, the stage (e.g. data overview, data quality, ' +
      'exploration, drivers, model, conclusions) and the Markdown narrative. The cells and charts run since the last ' +
      'section are attached as its evidence. The turn pauses until a person accepts, asks for a revision or discards it; ' +
      'when revising, pass `revises` with the section id.',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1 },
        markdown: { type: 'string', minLength: 1 },
        stage: { type: 'string', minLength: 1 },
        revises: { type: 'string', minLength: 1, description: 'Id of the section this is a new version of, e.g. s1' },
      },
      required: ['title', 'markdown'],
      additionalProperties: false,
    },
  },
};

const ORDER: TrainingToolName[] = ['run_sql', 'load_dataframe', 'run_python', 'draft_section'];

/** The definitions of `names`, each once, in a fixed order (so identical examples serialise identically). */
export function toolDefinitions(names: Iterable<TrainingToolName>): ToolDefinition[] {
  const wanted = new Set(names);
  return ORDER.filter((name) => wanted.has(name)).map((name) => ({ type: 'function', function: definitions[name] }));
}
