/**
 * The model port: one chat completion with tools, over any OpenAI-compatible endpoint, and text
 * embeddings when an embedding model is configured. Implemented in `src/llm/` with the `openai` package.
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
  /**
   * `none`: the tools are listed but none may be called; `{ name }`: that tool must be called. A stage that
   * must not act still sends the turn's tools, so its prompt repeats the act requests' prefix for the cache.
   */
  toolChoice?: 'none' | { name: string };
  params?: CompletionParams;
  signal?: AbortSignal;
}

export interface Completion {
  message: Extract<ChatMessage, { role: 'assistant' }>;
  toolCalls: ToolCall[];
  /**
   * Tokens as the provider counted them; `cachedTokens` is the part of the prompt it served from its prompt
   * cache (OpenAI's `prompt_tokens_details.cached_tokens`), present only when the provider says.
   */
  usage: { promptTokens: number; completionTokens: number; cachedTokens?: number };
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';
  /** The model that answered, as the provider named it (it may differ from the one asked for); absent when unsaid. */
  model?: string;
}

export interface LlmClient {
  /** The model used when `params.model` is not given. */
  readonly model: string;
  complete(request: CompletionRequest): Promise<Completion>;
  /**
   * One vector per text, in the order of `texts`. Present only when an embedding model is configured
   * (LLM_EMBEDDING_MODEL); absent otherwise, so callers check `llm.embed` before using it. It may be
   * called detached from the client (`const { embed } = llm`), so it can be handed on as a function.
   * Throws the same errors as `complete`.
   */
  embed?(texts: string[], options?: EmbedOptions): Promise<number[][]>;
}

export interface EmbedOptions {
  /** Cancels the request and any retry backoff. */
  signal?: AbortSignal;
}
