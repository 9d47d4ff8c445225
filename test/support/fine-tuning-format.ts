/**
 * An independent check of OpenAI's fine-tuning line formats, written from the documentation rather
 * than from tally's builder (it imports nothing from src/), so a mistake in the builder's types
 * cannot hide itself:
 *
 * - chat (supervised) lines: `FineTuneChatRequestInput` of the OpenAI API reference
 *   (`messages`, `tools`, `parallel_tool_calls`, deprecated `functions`), with assistant
 *   `tool_calls` `{id, type: 'function', function: {name, arguments}}` where `arguments` is a JSON
 *   string, and `tool` messages answering them by `tool_call_id` (Azure OpenAI "Fine-tuning and
 *   tool calling" shows the same shape);
 * - preference (DPO) lines: OpenAI's "Direct preference optimization" guide: `input.messages`
 *   (optionally `tools`, `parallel_tool_calls`), and `preferred_output` / `non_preferred_output`,
 *   each one assistant message with text content.
 */
import { z } from 'zod';

/** OpenAI function names: letters, digits, underscores and dashes, at most 64. */
const functionName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -');

const toolCall = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: functionName, arguments: z.string() }),
});

const name = z.string().optional();
const weight = z.union([z.literal(0), z.literal(1)]).optional();

const message = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: z.string(), name }),
  z.strictObject({ role: z.literal('developer'), content: z.string(), name }),
  z.strictObject({ role: z.literal('user'), content: z.string(), name }),
  z.strictObject({
    role: z.literal('assistant'),
    content: z.string().nullable().optional(),
    tool_calls: z.array(toolCall).min(1).optional(),
    name,
    weight,
  }),
  z.strictObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.string() }),
]);
type Message = z.infer<typeof message>;

const tool = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: functionName,
    description: z.string().optional(),
    parameters: z
      .record(z.string(), z.unknown())
      .refine((schema) => schema.type === 'object', 'must be a JSON Schema with type "object"')
      .optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

const chatLine = z.strictObject({
  messages: z.array(message).min(1),
  tools: z.array(tool).optional(),
  parallel_tool_calls: z.boolean().optional(),
  functions: z.array(z.unknown()).optional(),
});

const textAnswer = z.array(z.strictObject({ role: z.literal('assistant'), content: z.string().min(1) })).length(1);

const preferenceLine = z.strictObject({
  input: z.strictObject({
    messages: z.array(message).min(1),
    tools: z.array(tool).optional(),
    parallel_tool_calls: z.boolean().optional(),
  }),
  preferred_output: textAnswer,
  non_preferred_output: textAnswer,
});

/** Problems of one line of a chat fine-tuning JSONL file; empty when the line is valid. */
export function validateChatExampleLine(line: string): string[] {
  const parsed = parseLine(line, chatLine);
  if (!parsed.ok) return parsed.problems;
  const { messages, tools } = parsed.value;
  const problems = toolCallProblems(
    messages,
    'messages',
    tools?.map((entry) => entry.function.name),
  );
  if (!messages.some((entry) => entry.role === 'assistant'))
    problems.push('messages: no assistant message to learn from');
  else if (messages.at(-1)?.role !== 'assistant')
    problems.push('messages: the example does not end on an assistant message');
  const names = tools?.map((entry) => entry.function.name) ?? [];
  if (new Set(names).size !== names.length) problems.push('tools: a function is defined more than once');
  return problems;
}

/** Problems of one line of a DPO preference JSONL file; empty when the line is valid. */
export function validatePreferenceLine(line: string): string[] {
  const parsed = parseLine(line, preferenceLine);
  if (!parsed.ok) return parsed.problems;
  const { input, preferred_output: preferred, non_preferred_output: rejected } = parsed.value;
  const problems = toolCallProblems(
    input.messages,
    'input.messages',
    input.tools?.map((entry) => entry.function.name),
  );
  if (input.messages.at(-1)?.role !== 'user') problems.push('input.messages: the input does not end on a user message');
  if (preferred[0]?.content === rejected[0]?.content)
    problems.push('preferred_output and non_preferred_output are identical');
  return problems;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** The line parsed against `schema`, or why it is not one JSON line of that shape. */
function parseLine<S extends z.ZodType>(line: string, schema: S): Parsed<z.infer<S>> {
  if (line.includes('\n')) return { ok: false, problems: ['a JSONL line must not contain a newline'] };
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return { ok: false, problems: [`not JSON: ${error instanceof Error ? error.message : String(error)}`] };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(line)'}: ${issue.message}`);
  return { ok: false, problems };
}

/**
 * The tool-call rules of the chat format: ids unique, arguments a JSON object, the name among the
 * defined tools (when tools are given), and every call answered by tool messages right after the
 * assistant message that made it; a tool message must answer a call that is waiting.
 */
function toolCallProblems(messages: Message[], path: string, toolNames: string[] | undefined): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  let waiting: string[] = [];
  for (const [index, entry] of messages.entries()) {
    const at = `${path}.${index}`;
    if (entry.role === 'tool') {
      if (waiting.includes(entry.tool_call_id)) waiting = waiting.filter((id) => id !== entry.tool_call_id);
      else problems.push(`${at}: tool message answers '${entry.tool_call_id}', which no preceding tool call awaits`);
      continue;
    }
    if (waiting.length > 0)
      problems.push(`${at}: ${entry.role} message before tool call(s) ${waiting.join(', ')} were answered`);
    waiting = [];
    if (entry.role !== 'assistant') continue;
    const calls = entry.tool_calls ?? [];
    if (calls.length === 0 && !entry.content?.trim())
      problems.push(`${at}: assistant message has neither content nor tool_calls`);
    for (const [callIndex, call] of calls.entries()) {
      const where = `${at}.tool_calls.${callIndex}`;
      if (seen.has(call.id)) problems.push(`${where}: id '${call.id}' is used twice`);
      seen.add(call.id);
      waiting.push(call.id);
      if (toolNames && !toolNames.includes(call.function.name))
        problems.push(`${where}: '${call.function.name}' is not among the tools`);
      problems.push(...argumentProblems(call.function.arguments, `${where}.function.arguments`));
    }
  }
  if (waiting.length > 0) problems.push(`${path}: tool call(s) ${waiting.join(', ')} were never answered`);
  return problems;
}

function argumentProblems(text: string, where: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [`${where}: not valid JSON`];
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? [] : [`${where}: not a JSON object`];
}
