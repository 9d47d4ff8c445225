/** Builds the model client from the LLM_* settings; the agent picks a model per stage with `modelForStage`. */
import type { LlmSettings } from '../base/config.js';
import { LlmNotConfiguredError } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import { OpenAiLlmClient } from './openai-llm-client.js';

/**
 * Throws `LlmNotConfiguredError` (naming LLM_BASE_URL) when no endpoint is set. The client has `embed`
 * only when LLM_EMBEDDING_MODEL is set.
 */
export function createLlmClient(settings: LlmSettings, logger: Logger): OpenAiLlmClient {
  if (settings.baseUrl === undefined) throw new LlmNotConfiguredError();
  return new OpenAiLlmClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    model: settings.model,
    embeddingModel: settings.embeddingModel,
    timeoutMs: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    logger,
  });
}

/** The model for a stage (`plan`, `act`, ...): LLM_MODEL_<STAGE> when set, else LLM_MODEL. */
export function modelForStage(settings: LlmSettings, stage: string): string {
  return settings.stageModels[stage.toLowerCase()] ?? settings.model;
}
