/**
 * An `LlmClient` that reports every chat completion to the metrics port: its duration (retries
 * included, as the caller waits for them), its tokens, and whether it succeeded. Embeddings pass
 * through unmeasured.
 */
import type { Completion, CompletionRequest, LlmClient } from '../ports/llm.js';
import type { Metrics } from '../ports/metrics.js';

/** Wraps `llm`; the result has `embed` exactly when `llm` has. */
export function measuredLlm(llm: LlmClient, metrics: Metrics): LlmClient {
  // Bound once, so the wrapper's `embed` works detached like the port promises.
  const embed = llm.embed?.bind(llm);
  return {
    get model() {
      return llm.model;
    },
    async complete(request: CompletionRequest): Promise<Completion> {
      const started = performance.now();
      try {
        const completion = await llm.complete(request);
        const { promptTokens, completionTokens } = completion.usage;
        metrics.modelCalled(performance.now() - started, { prompt: promptTokens, completion: completionTokens }, true);
        return completion;
      } catch (error) {
        // A request the caller cancelled (a user's "stop") says nothing about the model's health;
        // counting it as failed would trip alerts on model errors.
        if (!request.signal?.aborted) {
          metrics.modelCalled(performance.now() - started, { prompt: 0, completion: 0 }, false);
        }
        throw error;
      }
    },
    ...(embed === undefined ? {} : { embed }),
  };
}
