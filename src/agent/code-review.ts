/** The optional review stage: another look at code before it runs (setting `review=on`). */
import { z } from 'zod';
import type { CompletionParams, LlmClient } from '../ports/llm.js';
import { renderPrompt, type StagePrompt } from './stage-prompts.js';
import type { AgentTool } from './tool.js';
import { parseToolArguments, toolSpec } from './tool-schema.js';

const verdict = z.object({
  approve: z.boolean(),
  problems: z.string().optional(),
  fixed_code: z.string().optional(),
});

const reviewTool = {
  name: 'review',
  description: 'Approve the code, or say what is wrong and fix it.',
  schema: verdict,
};

/** Wraps run_python so that every cell is reviewed first; a fix replaces the code, with a note. */
export interface CodeReviewOptions {
  llm: LlmClient;
  prompt: StagePrompt;
  params: CompletionParams;
  schema: string;
}

export function reviewed(
  runPython: AgentTool<{ code: string }>,
  options: CodeReviewOptions,
): AgentTool<{ code: string }> {
  return {
    ...runPython,
    async execute(args, context) {
      const completion = await options.llm.complete({
        messages: [
          { role: 'system', content: renderPrompt(options.prompt.template, { schema: options.schema }) },
          { role: 'user', content: `Review this code before it runs:\n\n${args.code}` },
        ],
        tools: [toolSpec(reviewTool.name, reviewTool.description, reviewTool.schema)],
        params: options.params,
        signal: context.signal,
      });
      const call = completion.toolCalls.find((candidate) => candidate.name === 'review');
      const parsed = call ? parseToolArguments(reviewTool.schema, call.arguments, reviewTool.name) : undefined;
      if (!parsed?.ok || parsed.value.approve) return runPython.execute(args, context);
      const { problems = 'no reason given', fixed_code: fixed } = parsed.value;
      if (!fixed)
        return {
          content: `The reviewer stopped this code: ${problems}. Fix it and call run_python again.`,
          failed: true,
        };
      const outcome = await runPython.execute({ code: fixed }, context);
      return {
        ...outcome,
        content: `The reviewer changed the code (${problems}) and ran:\n${fixed}\n\n${outcome.content}`,
      };
    },
  };
}
