/**
 * The model port: one chat completion with tools, over any OpenAI-compatible endpoint.
 * Implemented in `src/llm/` with the `openai` package.
 */

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model wrote them: JSON text, possibly malformed. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool the model may call; `parameters` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface CompletionParams {
  /** Overrides the configured model (LLM_MODEL) for this call. */
  model?: string;
  temperature?: number;
  maxTokens?: number;
}

export interface CompletionRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  params?: CompletionParams;
  signal?: AbortSignal;
}

export interface Completion {
  message: Extract<ChatMessage, { role: 'assistant' }>;
  toolCalls: ToolCall[];
  usage: { promptTokens: number; completionTokens: number };
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';
}

export interface LlmClient {
  /** The model used when `params.model` is not given. */
  readonly model: string;
  complete(request: CompletionRequest): Promise<Completion>;
}
