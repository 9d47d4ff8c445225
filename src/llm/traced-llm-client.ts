/**
 * An `LlmClient` whose every request is a span, named and described by OpenTelemetry's GenAI conventions
 * (`chat {model}`: the operation, the requested and the answering model, input, output and cached tokens, the
 * finish reason, the endpoint's host and port). What went to the model and what came back stay out of it:
 * the span counts the messages, tools and tool calls, nothing more.
 */
import type { Completion, CompletionRequest, EmbedOptions, LlmClient } from '../ports/llm.js';
import type { SpanAttributes, Tracing } from '../ports/tracing.js';

export interface TracedLlmOptions {
  /** Where requests go (LLM_BASE_URL), for `server.address` and `server.port`; credentials in it are never used. */
  baseUrl?: string | undefined;
}

/** Wraps `llm`; the result has `embed` exactly when `llm` has. */
export function tracedLlm(llm: LlmClient, tracing: Tracing, options: TracedLlmOptions = {}): LlmClient {
  const embed = llm.embed?.bind(llm);
  const server = serverOf(options.baseUrl);
  return {
    get model() {
      return llm.model;
    },
    complete(request: CompletionRequest): Promise<Completion> {
      const model = request.params?.model ?? llm.model;
      const attributes: SpanAttributes = {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': model,
        'gen_ai.request.temperature': request.params?.temperature,
        'gen_ai.request.max_tokens': request.params?.maxTokens,
        'tally.llm.messages': request.messages.length,
        'tally.llm.tools': request.tools?.length ?? 0,
        ...server,
      };
      return tracing.span(
        `chat ${model}`,
        attributes,
        async (span) => {
          const completion = await llm.complete(request);
          span.set({
            'gen_ai.response.model': completion.model ?? model,
            'gen_ai.response.finish_reasons': [completion.finishReason],
            'gen_ai.usage.input_tokens': completion.usage.promptTokens,
            'gen_ai.usage.output_tokens': completion.usage.completionTokens,
            'gen_ai.usage.cache_read.input_tokens': completion.usage.cachedTokens,
            'tally.llm.tool_calls': completion.toolCalls.length,
          });
          return completion;
        },
        { kind: 'client' },
      );
    },
    ...(embed === undefined
      ? {}
      : {
          embed: (texts: string[], embedOptions?: EmbedOptions) =>
            tracing.span(
              'embeddings',
              { 'gen_ai.operation.name': 'embeddings', 'tally.llm.inputs': texts.length, ...server },
              () => embed(texts, embedOptions),
              { kind: 'client' },
            ),
        }),
  };
}

/** `server.address` and `server.port` of the endpoint; nothing when it is not set or not a URL. */
function serverOf(baseUrl: string | undefined): SpanAttributes {
  if (!baseUrl) return {};
  try {
    const url = new URL(baseUrl);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { 'server.address': url.hostname, 'server.port': port };
  } catch {
    return {};
  }
}
