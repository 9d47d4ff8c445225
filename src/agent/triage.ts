/**
 * The triage stage: can this request be answered from the data, is it ambiguous, or out of scope? It
 * repeats the act request's prefix (the same system prompt, tools and history, then the turn's message)
 * and adds its instruction last, so the provider's prompt cache serves all but that instruction.
 */
import { z } from 'zod';
import type { Logger } from '../base/logger.js';
import type { ChatMessage, CompletionParams, LlmClient, ToolSpec } from '../ports/llm.js';
import { renderPrompt, type StagePrompt } from './stage-prompts.js';
import { defineTool } from './tool.js';
import { parseToolArguments } from './tool-schema.js';

const decision = z.object({
  verdict: z.enum(['answerable', 'ambiguous', 'out_of_scope']),
  reason: z.string().optional(),
  question: z.string().optional(),
  choices: z.array(z.string()).max(5).optional(),
  multi_step: z.boolean().optional().describe('True when the request needs several analysis steps.'),
});

export type TriageDecision = z.infer<typeof decision>;

/**
 * Listed with the turn's tools so triage and the act requests send the same tool list; called in the
 * act stage (it should not be), it says the decision was made.
 */
export const triageTool = defineTool({
  name: 'triage',
  description: 'Record whether the request can be answered from the data. Only when asked to triage a request.',
  schema: decision,
  async execute() {
    return { content: 'The request was triaged already: go on with the work.' };
  },
});

export async function triage(options: {
  llm: LlmClient;
  prompt: StagePrompt;
  params: CompletionParams;
  /** The act request's messages: system prompt, history, the turn's message. */
  messages: ChatMessage[];
  /** The act request's tools, the triage tool among them. */
  tools: ToolSpec[];
  signal: AbortSignal;
  logger: Logger;
}): Promise<TriageDecision> {
  const completion = await options.llm.complete({
    messages: [...options.messages, { role: 'user', content: renderPrompt(options.prompt.template, {}) }],
    tools: options.tools,
    toolChoice: { name: triageTool.name },
    params: options.params,
    signal: options.signal,
  });
  const call = completion.toolCalls.find((candidate) => candidate.name === triageTool.name);
  const parsed = call ? parseToolArguments(triageTool.schema, call.arguments, triageTool.name) : undefined;
  if (parsed?.ok) {
    const value = parsed.value as TriageDecision;
    // A question without a question is no question: go ahead instead of asking nothing.
    if (value.verdict === 'ambiguous' && !value.question) return { ...value, verdict: 'answerable' };
    return value;
  }
  options.logger.warn({ content: completion.message.content?.slice(0, 200) }, 'triage gave no decision; going ahead');
  return { verdict: 'answerable' };
}
