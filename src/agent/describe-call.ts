/** Short texts about tool calls for the thread: a status line per call, the gist of a failure. */
import type { ToolCall } from '../ports/llm.js';

/** A status line for a tool call: the tool and the gist of its arguments. */
export function describeCall(call: ToolCall): string {
  let args: Record<string, unknown> = {};
  try {
    args = JSON.parse(call.arguments) as Record<string, unknown>;
  } catch {
    // malformed arguments: the tool result will say so
  }
  const gist = [args.name, args.table, args.sql, args.code, args.question, args.title].find(
    (value) => typeof value === 'string',
  );
  const line = typeof gist === 'string' ? gist.replace(/\s+/g, ' ').trim() : '';
  return line ? `${call.name}: ${line.length > 80 ? `${line.slice(0, 79)}…` : line}` : call.name;
}

/** The line of a failure that says what went wrong (the `error:` line, else the first). */
export function firstLine(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const error = lines.find((line) => /^error:/.test(line)) ?? lines[0] ?? '';
  return error.slice(0, 300);
}
