/**
 * Between tally's LLM port and the OpenAI wire format: chat requests (messages, tools, parameters) out,
 * completions and embedding vectors in, tolerant of the ways compatible servers differ.
 */
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import { LlmResponseInvalidError } from '../base/errors.js';
import type { ChatMessage, Completion, CompletionRequest, ToolCall, ToolSpec } from '../ports/llm.js';

/** The chat completion request for `model`; tools and parameters only when the request has them. */
export function toChatRequest(request: CompletionRequest, model: string): ChatCompletionCreateParamsNonStreaming {
  const params = request.params ?? {};
  return {
    model,
    messages: request.messages.map(toWireMessage),
    ...(request.tools && request.tools.length > 0 ? { tools: request.tools.map(toWireTool) } : {}),
    ...(request.toolChoice === undefined ? {} : { tool_choice: toWireToolChoice(request.toolChoice) }),
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    // `max_tokens` rather than `max_completion_tokens`: the one every compatible server knows.
    ...(params.maxTokens === undefined ? {} : { max_tokens: params.maxTokens }),
  };
}

function toWireToolChoice(choice: 'none' | { name: string }): ChatCompletionToolChoiceOption {
  return choice === 'none' ? 'none' : { type: 'function', function: { name: choice.name } };
}

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
      ...cachedTokensOf(completion.usage),
    },
    finishReason: finishReasonOf(choice.finish_reason, toolCalls.length > 0),
    ...(typeof completion.model === 'string' && completion.model !== '' ? { model: completion.model } : {}),
  };
}

/** What the provider served from its prompt cache, when it says (OpenAI, DeepSeek, vLLM put it in the same field). */
function cachedTokensOf(usage: ChatCompletion['usage']): { cachedTokens?: number } {
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  return typeof cached === 'number' ? { cachedTokens: cached } : {};
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
