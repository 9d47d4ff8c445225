/** Errors of the model endpoint (OpenAI-compatible): each names what to change (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL…). */
import { AppError } from './app-error.js';

export class LlmNotConfiguredError extends AppError {
  constructor() {
    super(
      'LLM_NOT_CONFIGURED',
      'No model endpoint is configured. Set LLM_BASE_URL (e.g. https://api.openai.com/v1, or http://localhost:11434/v1 for Ollama) and, if it needs one, LLM_API_KEY.',
    );
  }
}

/** The endpoint kept answering 429 after every retry. */
export class LlmRateLimitedError extends AppError {
  /** What the endpoint last asked us to wait (Retry-After), in milliseconds, when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(baseUrl: string, attempts: number, retryAfterMs: number | undefined, cause?: unknown) {
    const wait = retryAfterMs === undefined ? '' : ` It asked to wait ${Math.ceil(retryAfterMs / 1000)} s.`;
    super(
      'LLM_RATE_LIMITED',
      `The model endpoint ${baseUrl} is rate limiting requests (HTTP 429) and still was after ${attempts} attempt(s).${wait} Try again later, raise LLM_MAX_RETRIES, or use another LLM_MODEL / LLM_API_KEY with a higher limit.`,
      { details: { baseUrl, attempts, retryAfterMs }, cause },
    );
    this.retryAfterMs = retryAfterMs;
  }
}

/** Connection refused or reset, or 5xx, after every retry. */
export class LlmUnavailableError extends AppError {
  constructor(baseUrl: string, attempts: number, reason: string, cause?: unknown) {
    super(
      'LLM_UNAVAILABLE',
      `The model endpoint ${baseUrl} is unavailable after ${attempts} attempt(s): ${reason}. Check LLM_BASE_URL and that the server runs.`,
      { details: { baseUrl, attempts, reason }, cause },
    );
  }
}

export class LlmAuthError extends AppError {
  constructor(baseUrl: string, status: number, serverMessage: string, cause?: unknown) {
    super(
      'LLM_AUTH_FAILED',
      `The model endpoint ${baseUrl} refused the credentials (HTTP ${status}): ${serverMessage}. Check LLM_API_KEY.`,
      { details: { baseUrl, status }, cause },
    );
  }
}

/** The endpoint rejected the request itself (400, 404, 422...): retrying the same request will not help. */
export class LlmRequestError extends AppError {
  constructor(baseUrl: string, status: number | undefined, serverMessage: string, cause?: unknown) {
    const hint = status === 404 ? ' Check LLM_MODEL (the model may not exist there) and LLM_BASE_URL.' : '';
    super(
      'LLM_REQUEST_INVALID',
      `The model endpoint ${baseUrl} rejected the request (HTTP ${status ?? '?'}): ${serverMessage}.${hint}`,
      { details: { baseUrl, status, serverMessage }, cause },
    );
  }
}

/** The endpoint answered, but not with a chat completion (often a LLM_BASE_URL without `/v1`). */
export class LlmResponseInvalidError extends AppError {
  constructor(baseUrl: string, problem: string) {
    super(
      'LLM_RESPONSE_INVALID',
      `The model endpoint ${baseUrl} did not answer with a chat completion: ${problem}. Check LLM_BASE_URL (OpenAI-compatible servers usually end in /v1).`,
      { details: { baseUrl } },
    );
  }
}

export class LlmTimeoutError extends AppError {
  constructor(baseUrl: string, timeoutMs: number) {
    super(
      'LLM_TIMEOUT',
      `The model endpoint ${baseUrl} did not answer within ${timeoutMs} ms. Raise LLM_TIMEOUT_MS, or choose a faster LLM_MODEL.`,
      { details: { baseUrl, timeoutMs } },
    );
  }
}

/** The model or server cannot do tool (function) calling, which the agent needs. */
export class LlmToolsUnsupportedError extends AppError {
  constructor(baseUrl: string, model: string, serverMessage: string, cause?: unknown) {
    super(
      'LLM_TOOLS_UNSUPPORTED',
      `Model '${model}' at ${baseUrl} does not accept tools: ${serverMessage}. tally requires a model with tool (function) calling: change LLM_MODEL or LLM_BASE_URL (vLLM needs --enable-auto-tool-choice and --tool-call-parser, llama.cpp --jinja).`,
      { details: { baseUrl, model, serverMessage }, cause },
    );
  }
}

/**
 * The caller's AbortSignal fired. Named `AbortError`, like the DOM exception, so code that checks
 * `error.name === 'AbortError'` treats it as a cancellation.
 */
export class LlmCancelledError extends AppError {
  constructor(cause?: unknown) {
    super('LLM_CANCELLED', 'The model request was cancelled.', { cause });
    this.name = 'AbortError';
  }
}
