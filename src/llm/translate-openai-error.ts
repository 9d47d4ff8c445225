/**
 * Foreign errors translated at the edge: what the `openai` SDK throws for a failed attempt becomes
 * either a retryable failure (429, 408, 409, 5xx, failed connections, unless the server says
 * `x-should-retry: false`) or a final tally `AppError` from `src/base/errors.ts`. The server's own words
 * are kept, with the API key scrubbed from them, and an SDK error that echoes the key never travels on
 * as a cause.
 */
import OpenAI from 'openai';
import {
  type AppError,
  LlmAuthError,
  LlmRateLimitedError,
  LlmRequestError,
  LlmResponseInvalidError,
  LlmToolsUnsupportedError,
  LlmUnavailableError,
} from '../base/errors.js';
import { retryAfter } from './retry-delay.js';

/** What an SDK error means for the request: give up with a tally error, or try again. */
export type TranslatedFailure = { kind: 'final'; error: AppError } | RetryableFailure;

export type RetryableFailure = {
  kind: 'retryable';
  status: number | undefined;
  reason: string;
  retryAfterMs: number | undefined;
  cause: unknown;
};

/** What the translation needs to know about the endpoint and the request that failed. */
export interface FailedRequest {
  /** The base URL without any user:password part, for messages. */
  endpoint: string;
  /** The configured key, only to scrub it from what servers echo back. */
  apiKey: string | undefined;
  model: string;
  /** Whether the request carried tools: only then is a "not supported" answer about tools. */
  withTools: boolean;
}

const TOOLS_MENTIONED = /\btools?\b|tool[ _-]?choice|function[ _-]?call/i;
const NOT_SUPPORTED =
  /not support|n't support|unsupported|not enabled|--jinja|--enable-auto-tool-choice|--tool-call-parser/i;

/** An SDK error (neither an abort nor a timeout) as a retryable or final failure. */
export function translateOpenAiError(error: unknown, request: FailedRequest): TranslatedFailure {
  const { endpoint } = request;
  if (error instanceof OpenAI.APIConnectionError) {
    const reason = `cannot connect (${describeCause(error)})`;
    return { kind: 'retryable', status: undefined, reason, retryAfterMs: undefined, cause: error };
  }
  if (!(error instanceof OpenAI.APIError) || error.status === undefined) {
    const problem = error instanceof Error ? error.message : String(error);
    return { kind: 'final', error: new LlmResponseInvalidError(endpoint, problem) };
  }
  const status = error.status;
  const message = scrub(serverMessage(error), request.apiKey);
  // Some servers echo the key in their messages; such an SDK error must not travel on as a cause.
  const cause = request.apiKey && error.message.includes(request.apiKey) ? undefined : error;
  if (request.withTools && TOOLS_MENTIONED.test(message) && NOT_SUPPORTED.test(message) && status !== 429) {
    return { kind: 'final', error: new LlmToolsUnsupportedError(endpoint, request.model, message, cause) };
  }
  if (status === 401 || status === 403) {
    return { kind: 'final', error: new LlmAuthError(endpoint, status, message, cause) };
  }
  const retryAfterMs = retryAfter(error.headers);
  const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
  if (retryable && error.headers?.get('x-should-retry') !== 'false') {
    return { kind: 'retryable', status, reason: `HTTP ${status}: ${message}`, retryAfterMs, cause };
  }
  if (status === 429) {
    return { kind: 'final', error: new LlmRateLimitedError(endpoint, 1, retryAfterMs, cause) };
  }
  if (status >= 500) {
    return { kind: 'final', error: new LlmUnavailableError(endpoint, 1, `HTTP ${status}: ${message}`, cause) };
  }
  return { kind: 'final', error: new LlmRequestError(endpoint, status, message, cause) };
}

/** The error thrown when the last allowed attempt failed in a retryable way. */
export function retriesExhaustedError(endpoint: string, failure: RetryableFailure, attempts: number): AppError {
  if (failure.status === 429) {
    return new LlmRateLimitedError(endpoint, attempts, failure.retryAfterMs, failure.cause);
  }
  return new LlmUnavailableError(endpoint, attempts, failure.reason, failure.cause);
}

function scrub(text: string, apiKey: string | undefined): string {
  return apiKey ? text.replaceAll(apiKey, '[redacted]') : text;
}

/** The server's own words: `error.message` from the body, else the SDK's summary. */
function serverMessage(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === 'string' && body.message.length > 0) return body.message;
  return error.message.replace(/^\d{3}\s+/, '') || 'no message';
}

function describeCause(error: Error): string {
  const cause = error.cause as (Error & { code?: string; cause?: Error & { code?: string } }) | undefined;
  return cause?.cause?.code ?? cause?.code ?? cause?.cause?.message ?? cause?.message ?? error.message;
}
