/**
 * Tools as the model sees them: a zod schema becomes the JSON Schema of `ToolSpec.parameters`, and
 * the arguments the model wrote are checked against the same schema. A failed check is the model's
 * mistake, so it is returned as a message written for the model (the agent sends it back as the
 * tool result), never thrown.
 */
import { z } from 'zod';
import type { ToolSpec } from '../ports/llm.js';

export type ToolArgumentsResult<T> = { ok: true; value: T } | { ok: false; message: string };

/** A schema's JSON Schema, made once: every model request lists the tools, and making it costs milliseconds. */
const parametersOf = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The spec of a tool whose arguments follow `schema` (a zod object schema). */
export function toolSpec(name: string, description: string, schema: z.ZodType): ToolSpec {
  let parameters = parametersOf.get(schema);
  if (!parameters) {
    parameters = jsonSchemaOf(schema);
    parametersOf.set(schema, parameters);
  }
  return { name, description, parameters };
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  // `input`: what the model must write (fields with defaults are optional for it).
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(schema, {
    io: 'input',
    override: ({ jsonSchema }) => {
      // zod bounds every int by the safe-integer range, and a required text is never empty: noise in every request,
      // so leave them out (the arguments are still checked against them).
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minLength === 1) delete jsonSchema.minLength;
      // Object keys are strings in JSON anyway.
      if ((jsonSchema.propertyNames as { type?: string } | undefined)?.type === 'string')
        delete jsonSchema.propertyNames;
    },
  });
  return parameters;
}

/**
 * Parses and validates the raw arguments of a call to `toolName`. Empty arguments count as `{}`
 * (some models send nothing for a tool without parameters).
 */
export function parseToolArguments<S extends z.ZodType>(
  schema: S,
  rawJson: string,
  toolName: string,
): ToolArgumentsResult<z.output<S>> {
  let json: unknown;
  try {
    json = rawJson.trim() === '' ? {} : JSON.parse(rawJson);
  } catch (error) {
    return { ok: false, message: invalidJsonMessage(toolName, rawJson, error) };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => `- ${pathOf(issue.path)}: ${issue.message}`);
  return {
    ok: false,
    message: [
      `The arguments of tool '${toolName}' do not match its parameters:`,
      ...problems,
      'Fix them and call the tool again.',
    ].join('\n'),
  };
}

function invalidJsonMessage(toolName: string, rawJson: string, error: unknown): string {
  const reason = (error instanceof Error ? error.message : String(error)).replace(/ in JSON at position \d+.*$/, '');
  const reported = /at position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
  const position = reported === undefined ? rawJson.length : Number(reported);
  const before = rawJson.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  const near = rawJson.slice(Math.max(0, position - 20), position + 20);
  return [
    `The arguments of tool '${toolName}' are not valid JSON: ${reason} at position ${position} (line ${line}, column ${column}), near: ${JSON.stringify(near)}.`,
    'Call the tool again with the arguments as one JSON object matching its parameters.',
  ].join('\n');
}

/** `sql`, `filters[0].column`; the whole object is `(arguments)`. */
function pathOf(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return '(arguments)';
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}
