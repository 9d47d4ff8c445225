/** The triage stage: can this request be answered from the data, is it ambiguous, or out of scope? */
import { z } from 'zod';
import type { Logger } from '../base/logger.js';
import type { CompletionParams, LlmClient } from '../ports/llm.js';
import { renderPrompt, type StagePrompt } from './stage-prompts.js';
import { parseToolArguments, toolSpec } from './tool-schema.js';

const decision = z.object({
  verdict: z.enum(['answerable', 'ambiguous', 'out_of_scope']),
  reason: z.string().optional(),
  question: z.string().optional(),
  choices: z.array(z.string()).max(5).optional(),
  multi_step: z.boolean().optional().describe('True when the request needs several analysis steps.'),
});

export type TriageDecision = z.infer<typeof decision>;

const triageTool = {
  name: 'triage',
  description: 'Record whether the request can be answered from the data.',
  schema: decision,
};

export async function triage(options: {
  llm: LlmClient;
  prompt: StagePrompt;
  params: CompletionParams;
  schema: string;
  request: string;
  signal: AbortSignal;
  logger: Logger;
}): Promise<TriageDecision> {
  const completion = await options.llm.complete({
    messages: [
      { role: 'system', content: renderPrompt(options.prompt.template, { schema: options.schema }) },
      { role: 'user', content: options.request },
    ],
    tools: [toolSpec(triageTool.name, triageTool.description, triageTool.schema)],
    params: options.params,
    signal: options.signal,
  });
  const call = completion.toolCalls.find((candidate) => candidate.name === 'triage');
  const parsed = call ? parseToolArguments(triageTool.schema, call.arguments, triageTool.name) : undefined;
  if (parsed?.ok) {
    const value = parsed.value;
    // A question without a question is no question: go ahead instead of asking nothing.
    if (value.verdict === 'ambiguous' && !value.question) return { ...value, verdict: 'answerable' };
    return value;
  }
  options.logger.warn({ content: completion.message.content?.slice(0, 200) }, 'triage gave no decision; going ahead');
  return { verdict: 'answerable' };
}
