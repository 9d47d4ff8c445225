/**
 * The plan stage: the steps the model means to take for the request it was sent last. It repeats the act request
 * (system prompt, tools, history) and adds its instruction as the last message, so the provider's prompt cache
 * serves the rest; `tool_choice: none` lets it list the tools without calling one.
 */
import type { ChatMessage, CompletionParams, LlmClient, ToolSpec } from '../ports/llm.js';
import { renderPrompt, type StagePrompt } from './stage-prompts.js';

export async function planRequest(options: {
  llm: LlmClient;
  prompt: StagePrompt;
  params: CompletionParams;
  /** What the act request sends: the system prompt, the history, the request's messages. */
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** The playbook the request follows, as prompt text ('' for none). */
  playbook: string;
  signal: AbortSignal;
}): Promise<string> {
  const instruction = renderPrompt(options.prompt.template, { playbook: options.playbook }).trim();
  const completion = await options.llm.complete({
    messages: [...options.messages, { role: 'user', content: instruction }],
    tools: options.tools,
    toolChoice: 'none',
    params: options.params,
    signal: options.signal,
  });
  return completion.message.content?.trim() ?? '';
}
