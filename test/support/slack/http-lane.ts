/**
 * The HTTP lane: Slack POSTing to an app's request URL (a Bolt `HTTPReceiver`), signed with the
 * signing secret. Events go as JSON; interactivity as a form with one `payload` field; slash
 * commands as a form of flat fields. Build bodies with the builders in `events.ts`.
 */
import { createHmac } from 'node:crypto';
import type { Json } from './slack-state.js';

export interface SignedRequestOptions {
  signingSecret: string;
  /** `X-Slack-Request-Timestamp` in Unix seconds; default now. Bolt rejects one older than 5 minutes. */
  timestamp?: number;
  /** Sent instead of the correct `v0=<hex>` signature, to test rejection. */
  signature?: string;
  /** Extra headers, e.g. `x-slack-retry-num`. */
  headers?: Record<string, string>;
}

/** `v0=<hex HMAC-SHA256(secret, "v0:<timestamp>:<body>")>`, as Slack signs requests. */
export function slackSignature(signingSecret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** A form with one `payload` field holding the JSON, as Slack sends interactive payloads. */
export function interactivityForm(payload: Json): URLSearchParams {
  return new URLSearchParams({ payload: JSON.stringify(payload) });
}

/**
 * POSTs a signed request: an object as JSON (Events API), a `URLSearchParams` as a form with the
 * content type exactly `application/x-www-form-urlencoded` (Bolt compares it with `===`).
 */
export function signedRequest(
  url: string,
  body: Json | URLSearchParams,
  options: SignedRequestOptions,
): Promise<Response> {
  const isForm = body instanceof URLSearchParams;
  const text = isForm ? body.toString() : JSON.stringify(body);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  return fetch(url, {
    method: 'POST',
    body: text,
    headers: {
      'content-type': isForm ? 'application/x-www-form-urlencoded' : 'application/json',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': options.signature ?? slackSignature(options.signingSecret, timestamp, text),
      ...options.headers,
    },
  });
}
