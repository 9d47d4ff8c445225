/**
 * What a REST route handler is and what it gets: the parsed request and the stand-in's state,
 * limits, and a way to send gateway events after the reply (as Discord does for the bot's own
 * messages, reactions and threads).
 */
import type { Json } from './discord-model.js';
import type { DiscordState } from './discord-state.js';
import type { UploadedFile } from './multipart.js';
import type { RestReply } from './rest-reply.js';

export interface RestLimits {
  /** How long after INTERACTION_CREATE the initial callback is accepted, in milliseconds (Discord: 3000). */
  initialResponseMs: number;
  /** How long an interaction token works for webhooks, in milliseconds (Discord: 15 minutes). */
  interactionTokenTtlMs: number;
  /** The largest file one message may carry, in bytes (Discord: 10 MiB without boosts). */
  attachmentSizeLimitBytes: number;
}

export interface RestContext {
  state: DiscordState;
  /** `http://127.0.0.1:<port>`, for attachment URLs. */
  baseUrl: string;
  /** `ws://127.0.0.1:<port>/gateway`, for `GET /gateway/bot`. */
  gatewayUrl: string;
  limits: RestLimits;
  /** Dispatches a gateway event once the HTTP reply is out; dropped when no client is connected. */
  emit: (type: string, data: Json) => void;
}

export interface RouteRequest {
  method: string;
  /** Decoded path parameters, e.g. `{ channelId, messageId, emoji: '✅' }`. */
  params: Record<string, string>;
  query: URLSearchParams;
  json: unknown;
  files: UploadedFile[];
}

export type RouteHandler = (request: RouteRequest, context: RestContext) => RestReply | Promise<RestReply>;

export interface RouteDefinition {
  method: string;
  /** Path after `/api/v10`, with `:name` parameters: `/channels/:channelId/messages`. */
  template: string;
  /** False for interaction callbacks and webhooks, which the SDK sends without `Authorization` (the token is in the path). */
  auth: boolean;
  handle: RouteHandler;
}

/** The request's JSON body as an object (Discord rejects other shapes before our handlers see them). */
export function bodyObject(request: RouteRequest): Json {
  const { json } = request;
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Json) : {};
}
