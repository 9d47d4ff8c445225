/**
 * A tool call as a span (GenAI conventions, `execute_tool {name}`), so the SQL statements and cells it runs nest
 * under it: in the tool loop, and when a held call runs after its approval in the turn that resumes.
 */
import type { ToolCall } from '../ports/llm.js';
import type { Tracing } from '../ports/tracing.js';
import type { ToolOutcome } from './tool.js';

/** Runs the call in its span: its name and id, and how it ended. */
export function tracedToolCall(
  tracing: Tracing,
  call: ToolCall,
  run: () => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.name,
    'gen_ai.tool.call.id': call.id,
    'gen_ai.tool.type': 'function',
  };
  return tracing.span(`execute_tool ${call.name}`, attributes, async (span) => {
    const outcome = await run();
    span.set({ 'tally.tool.result_bytes': Buffer.byteLength(outcome.content), 'tally.tool.paused': !!outcome.pause });
    if (outcome.failed) span.fail('tool_failed');
    return outcome;
  });
}
