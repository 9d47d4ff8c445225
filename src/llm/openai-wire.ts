/**
 * Between tally's LLM port and the OpenAI wire format: messages and tools out, completions and
 * embedding vectors in, tolerant of the ways compatible servers differ.
 */
import type { ChatCompletion, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import { LlmResponseInvalidError } from '../base/errors.js';
import type { ChatMessage, Completion, ToolCall, ToolSpec } from '../ports/llm.js';

export function toWireMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        // An empty `tool_calls` array is rejected by some servers: leave the key out instead.
        ...(message.toolCalls && message.toolCalls.length > 0
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
  }
}

export function toWireTool(tool: ToolSpec) {
  return {
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

export function toCompletion(completion: ChatCompletion, endpoint: string): Completion {
  // A server that is not OpenAI-compatible may answer 200 with text or with other JSON.
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  if (!choice?.message) {
    const shape = typeof completion === 'string' ? 'a text body' : 'a response without choices';
    throw new LlmResponseInvalidError(endpoint, `got ${shape}`);
  }
  const toolCalls: ToolCall[] = (choice.message.tool_calls ?? []).flatMap((call, index) => {
    if (call.type !== 'function') return [];
    const raw: unknown = call.function.arguments;
    // Some servers send the arguments as an object rather than JSON text.
    const args = typeof raw === 'string' ? raw : JSON.stringify(raw ?? {});
    return [{ id: call.id || `call_${index}`, name: call.function.name, arguments: args }];
  });
  return {
    message: {
      role: 'assistant',
      content: choice.message.content ?? null,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    },
    toolCalls,
    usage: {
      promptTokens: completion.usage?.prompt_tokens ?? 0,
      completionTokens: completion.usage?.completion_tokens ?? 0,
    },
    finishReason: finishReasonOf(choice.finish_reason, toolCalls.length > 0),
  };
}

/** The vectors in input order; a server may list them in any order, each with its `index`. */
export function toVectors(response: CreateEmbeddingResponse, count: number, endpoint: string): number[][] {
  const data = Array.isArray(response?.data) ? response.data : [];
  const vectors = Array.from({ length: count }, (_, index) => data.find((item) => item?.index === index)?.embedding);
  if (data.length !== count || !vectors.every((vector): vector is number[] => Array.isArray(vector))) {
    throw new LlmResponseInvalidError(endpoint, `got ${data.length} embedding(s) for ${count} input(s)`);
  }
  return vectors;
}

/** Some servers (Ollama among them) say `stop` when the model called tools; the calls are what count. */
function finishReasonOf(reason: string | null, hasToolCalls: boolean): Completion['finishReason'] {
  if (hasToolCalls && (reason === 'stop' || reason === 'function_call' || reason === null)) return 'tool_calls';
  if (reason === 'stop' || reason === 'tool_calls' || reason === 'length' || reason === 'content_filter') return reason;
  return 'other';
}
