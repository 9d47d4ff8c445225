/**
 * An `LlmClient` whose every request leaves an audit record: where it went (endpoint and model), its
 * tokens, how many messages went and which tool results were among them, by tool name and size, never
 * their content. Embedding requests are recorded too (what they embed goes to the provider as well).
 * `onTokens` is told what each request cost, and for whom (the budgets).
 */
import type { AuditActor, AuditTrail } from '../ports/audit.js';
import type { ChatMessage, Completion, CompletionRequest, LlmClient } from '../ports/llm.js';

export interface AuditedLlmOptions {
  audit: Pick<AuditTrail, 'record' | 'actor'>;
  /** Where requests go (LLM_BASE_URL), as recorded; never with a key in it. */
  endpoint: string;
  onTokens?: (actor: AuditActor | undefined, tokens: number) => Promise<void> | void;
}

export function auditedLlm(llm: LlmClient, options: AuditedLlmOptions): LlmClient {
  const { audit, endpoint } = options;
  const embed = llm.embed?.bind(llm);
  const record = async (
    model: string,
    messages: number,
    toolResults: Array<{ tool: string; bytes: number }>,
    usage: Completion['usage'] | undefined,
  ) => {
    const promptTokens = usage?.promptTokens ?? 0;
    const completionTokens = usage?.completionTokens ?? 0;
    await audit.record({
      kind: 'model',
      decision: 'allowed',
      model: {
        endpoint,
        model,
        promptTokens,
        completionTokens,
        messages,
        toolResults,
        ...(usage ? {} : { failed: true as const }),
      },
    });
    if (promptTokens + completionTokens > 0) await options.onTokens?.(audit.actor(), promptTokens + completionTokens);
  };
  return {
    get model() {
      return llm.model;
    },
    async complete(request: CompletionRequest): Promise<Completion> {
      const model = request.params?.model ?? llm.model;
      const inputs = toolResultsOf(request.messages);
      let completion: Completion | undefined;
      try {
        completion = await llm.complete(request);
        return completion;
      } finally {
        await record(model, request.messages.length, inputs, completion?.usage);
      }
    },
    ...(embed === undefined
      ? {}
      : {
          async embed(texts: string[], embedOptions?: Parameters<NonNullable<LlmClient['embed']>>[1]) {
            let vectors: number[][] | undefined;
            try {
              vectors = await embed(texts, embedOptions);
              return vectors;
            } finally {
              await record(
                'embeddings',
                texts.length,
                [],
                vectors ? { promptTokens: 0, completionTokens: 0 } : undefined,
              );
            }
          },
        }),
  };
}

/** The tool results among the messages, named by the tool that made them, with their size in bytes. */
export function toolResultsOf(messages: readonly ChatMessage[]): Array<{ tool: string; bytes: number }> {
  const tools = new Map<string, string>();
  const results: Array<{ tool: string; bytes: number }> = [];
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) tools.set(call.id, call.name);
    if (message.role === 'tool') {
      results.push({ tool: tools.get(message.toolCallId) ?? 'unknown', bytes: Buffer.byteLength(message.content) });
    }
  }
  return results;
}
