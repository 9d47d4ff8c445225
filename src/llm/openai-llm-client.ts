/**
 * The `LlmClient` port over the `openai` package, for any OpenAI-compatible endpoint (OpenAI,
 * DeepSeek, Ollama, vLLM, llama.cpp server): chat completions, and embeddings when an embedding
 * model is configured. Requests are built in `openai-wire.ts`.
 *
 * The retry policy is ours, not the SDK's (its own retries are off): what `translate-openai-error.ts`
 * calls retryable (429, 408, 409, 5xx, failed connections) is retried after the wait `retry-delay.ts`
 * works out, exponential backoff or `retry-after-ms` / `Retry-After` up to `maxRetryDelayMs`. Timeouts
 * are not retried (a slow model stays slow; LLM_TIMEOUT_MS is the knob), and nothing is retried once the
 * caller's signal fires. Every SDK error leaves this client as an `AppError` from `src/base/errors.ts`.
 */
import OpenAI from 'openai';
import { LlmCancelledError, LlmTimeoutError } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import type { Completion, CompletionRequest, LlmClient } from '../ports/llm.js';
import { toChatRequest, toCompletion, toVectors } from './openai-wire.js';
import { delayBeforeRetry, sleep } from './retry-delay.js';
import { retriesExhaustedError, type TranslatedFailure, translateOpenAiError } from './translate-openai-error.js';

/** The key sent to endpoints that need none (Ollama, llama.cpp, most vLLM set-ups). */
export const PLACEHOLDER_API_KEY = 'not-needed';

export interface OpenAiLlmClientOptions {
  /** OpenAI-compatible base URL, usually ending in `/v1` (LLM_BASE_URL). */
  baseUrl: string;
  /** Bearer token (LLM_API_KEY); default {@link PLACEHOLDER_API_KEY}. Never logged. */
  apiKey?: string | undefined;
  /** Model used when a call does not name one (LLM_MODEL). */
  model: string;
  /** Embedding model (LLM_EMBEDDING_MODEL); without it the client has no `embed`. */
  embeddingModel?: string | undefined;
  /** Time limit of one attempt, headers and body, in milliseconds; default 120000 (LLM_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx and failed connections; default 3 (LLM_MAX_RETRIES). */
  maxRetries?: number;
  /** Backoff before the first retry, doubled for each further one (with jitter), in milliseconds; default 500. */
  retryDelayMs?: number;
  /** Longest wait between attempts, also capping what Retry-After asks for, in milliseconds; default 30000. */
  maxRetryDelayMs?: number;
  /** Default: a logger that drops everything. */
  logger?: Logger;
}

/** One request to send, with what the logs and the error translation need to know about it. */
interface Call<Result> {
  model: string;
  /** Whether the request carries tools: only then is a "not supported" answer about tools. */
  withTools: boolean;
  /** Logged with each request (sizes, never content). */
  summary: Record<string, unknown>;
  send(signal: AbortSignal): Promise<Result>;
}

/** How one attempt ended; failures are classified before deciding whether to retry. */
type Outcome<Result> =
  | { kind: 'done'; result: Result }
  | { kind: 'cancelled'; cause: unknown }
  | { kind: 'timeout' }
  | TranslatedFailure;

export class OpenAiLlmClient implements LlmClient {
  readonly model: string;
  /** Present only with an embedding model; an arrow function, so it works detached from the client. */
  declare readonly embed?: NonNullable<LlmClient['embed']>;
  readonly #sdk: OpenAI;
  /** The base URL without any user:password part, for messages. */
  readonly #endpoint: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #retryDelayMs: number;
  readonly #maxRetryDelayMs: number;
  readonly #logger: Logger | undefined;
  /** The configured key, kept only to scrub it from what servers echo back. */
  readonly #apiKey: string | undefined;

  constructor(options: OpenAiLlmClientOptions) {
    this.model = options.model;
    this.#endpoint = displayUrl(options.baseUrl);
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#maxRetries = options.maxRetries ?? 3;
    this.#retryDelayMs = options.retryDelayMs ?? 500;
    this.#maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.#logger = options.logger?.child({ component: 'llm' });
    this.#apiKey = options.apiKey;
    this.#sdk = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey ?? PLACEHOLDER_API_KEY,
      // config.ts is the only reader of the environment: pin what the SDK would otherwise read from it.
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      maxRetries: 0,
      timeout: this.#timeoutMs,
      logLevel: 'off',
    });
    const embeddingModel = options.embeddingModel;
    if (embeddingModel !== undefined) {
      this.embed = (texts, embedOptions = {}) => this.#embed(embeddingModel, texts, embedOptions.signal);
    }
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    const model = request.params?.model ?? this.model;
    const body = toChatRequest(request, model);
    const completion = await this.#send(
      {
        model,
        withTools: body.tools !== undefined,
        summary: { messages: body.messages.length, tools: body.tools?.length ?? 0 },
        send: (signal) => this.#sdk.chat.completions.create(body, { signal }),
      },
      request.signal,
    );
    return toCompletion(completion, this.#endpoint);
  }

  async #embed(model: string, texts: string[], signal: AbortSignal | undefined): Promise<number[][]> {
    if (texts.length === 0) return [];
    const response = await this.#send(
      {
        model,
        withTools: false,
        summary: { inputs: texts.length },
        // `float` explicitly: the SDK would ask for base64, which not every compatible server speaks.
        send: (attemptSignal) =>
          this.#sdk.embeddings.create({ model, input: texts, encoding_format: 'float' }, { signal: attemptSignal }),
      },
      signal,
    );
    return toVectors(response, texts.length, this.#endpoint);
  }

  /** Sends the call, retrying as the file header describes; throws `AppError`s only. */
  async #send<Result extends { usage?: unknown }>(
    call: Call<Result>,
    signal: AbortSignal | undefined,
  ): Promise<Result> {
    const attempts = this.#maxRetries + 1;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#attempt(call, signal);
      if (outcome.kind === 'done') return outcome.result;
      if (outcome.kind === 'cancelled') throw new LlmCancelledError(outcome.cause);
      if (outcome.kind === 'timeout') throw new LlmTimeoutError(this.#endpoint, this.#timeoutMs);
      if (outcome.kind === 'final') throw outcome.error;
      if (attempt >= attempts) throw retriesExhaustedError(this.#endpoint, outcome, attempts);
      const delayMs = delayBeforeRetry(attempt, outcome.retryAfterMs, {
        retryDelayMs: this.#retryDelayMs,
        maxRetryDelayMs: this.#maxRetryDelayMs,
      });
      this.#logger?.warn(
        { model: call.model, attempt, status: outcome.status, reason: outcome.reason, delayMs },
        'model request failed; retrying',
      );
      await sleep(delayMs, signal).catch((reason: unknown) => {
        throw new LlmCancelledError(reason);
      });
    }
  }

  /** One request under its own time limit; resolves to the result or to a classified failure. */
  async #attempt<Result extends { usage?: unknown }>(
    call: Call<Result>,
    caller: AbortSignal | undefined,
  ): Promise<Outcome<Result>> {
    if (caller?.aborted) return { kind: 'cancelled', cause: caller.reason };
    // A plain controller, a timer and a removable listener, all let go in `finally`: with
    // AbortSignal.any/timeout, the SDK's listener on the combined signal kept every request's signals
    // alive for the life of the process (Node 20 holds such signals until they abort; measured by
    // bench:soak as ~2 KB per model request).
    const controller = new AbortController();
    const timedOut = { value: false };
    const timer = setTimeout(() => {
      timedOut.value = true;
      controller.abort(new Error(`no response within ${this.#timeoutMs} ms`));
    }, this.#timeoutMs);
    const onCallerAbort = () => controller.abort(caller?.reason);
    caller?.addEventListener('abort', onCallerAbort, { once: true });
    const signal = controller.signal;
    const startedAt = Date.now();
    this.#logger?.debug({ model: call.model, ...call.summary }, 'model request');
    try {
      const result = await call.send(signal);
      this.#logger?.debug(
        { model: call.model, durationMs: Date.now() - startedAt, usage: result?.usage },
        'model response',
      );
      return { kind: 'done', result };
    } catch (error) {
      // The signals decide first: the SDK reports both aborts and its own timeout in several shapes.
      if (caller?.aborted) return { kind: 'cancelled', cause: caller.reason };
      if (timedOut.value || error instanceof OpenAI.APIConnectionTimeoutError) return { kind: 'timeout' };
      return translateOpenAiError(error, {
        endpoint: this.#endpoint,
        apiKey: this.#apiKey,
        model: call.model,
        withTools: call.withTools,
      });
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCallerAbort);
    }
  }
}

function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}
