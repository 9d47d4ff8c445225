/** Tool schemas for the model from zod, and the model's arguments checked against them. */
import { z } from 'zod';
import type { ToolSpec } from '../ports/llm.js';
import type { AgentTool } from './tool.js';

export function toolSpec(tool: Pick<AgentTool, 'name' | 'description' | 'schema'>): ToolSpec {
  const schema = z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return { name: tool.name, description: tool.description, parameters: schema };
}

export type ParsedArguments<A> = { ok: true; value: A } | { ok: false; message: string };

/** The message on failure is for the model: which tool, what is wrong, so it can call again. */
export function parseToolArguments<A>(tool: Pick<AgentTool<A>, 'name' | 'schema'>, raw: string): ParsedArguments<A> {
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (error) {
    return {
      ok: false,
      message: `The arguments of ${tool.name} are not valid JSON (${(error as Error).message}). Call it again with a JSON object.`,
    };
  }
  const parsed = tool.schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`);
  return {
    ok: false,
    message: `Invalid arguments for ${tool.name}: ${problems.join('; ')}. Call it again with corrected arguments.`,
  };
}
