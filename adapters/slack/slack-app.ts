/**
 * The Bolt app tally runs on (Socket Mode with an app token, else the HTTP Events API), with the
 * Web API retries set explicitly, events acknowledged once written down (held-acks.ts), whether Slack
 * can reach it now, and which Web API errors the post queue tries again.
 */
import { App, HTTPReceiver, LogLevel, type Receiver, SocketModeReceiver } from '@slack/bolt';
import type { Logger } from '../../src/base/logger.js';
import { HeldAcks } from './held-acks.js';

/** What the app is built from: the fields of `SlackAdapterOptions` that say so (documented there). */
export interface SlackAppOptions {
  botToken: string;
  appToken?: string;
  signingSecret?: string;
  port?: number;
  apiUrl?: string;
  retries?: number;
  logger: Logger;
}

export interface SlackApp {
  app: App;
  /**
   * Socket Mode: the connection has been greeted (`hello`) and is not reconnecting. HTTP events have no
   * connection: always true (the adapter knows whether it listens).
   */
  isConnected(): boolean;
  /** The acknowledgement of the event being handled, to call once it is written down (see held-acks.ts). */
  takeAck(): (() => void) | undefined;
}

export function createSlackApp(options: SlackAppOptions): SlackApp {
  if (!options.appToken && !options.signingSecret) {
    throw new Error('Slack needs SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP events)');
  }
  const clientOptions = {
    ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
    // Set explicitly: Socket Mode would otherwise leave every client with 100 retries.
    retryConfig: { retries: options.retries ?? 5, factor: 2, minTimeout: 200, maxTimeout: 30_000 },
  };
  const { receiver, isConnected } = options.appToken
    ? socketMode(options.appToken, clientOptions)
    : { receiver: new HTTPReceiver({ signingSecret: options.signingSecret ?? '', logLevel: LogLevel.ERROR }) };
  const held = new HeldAcks(options.logger);
  const app = new App({
    token: options.botToken,
    receiver: held.wrap(receiver),
    clientOptions,
    logLevel: LogLevel.ERROR,
  });
  return { app, isConnected: isConnected ?? (() => true), takeAck: () => held.take() };
}

/** Built here rather than by `socketMode: true`, so that its client's connection states can be followed. */
function socketMode(appToken: string, clientOptions: object): { receiver: Receiver; isConnected: () => boolean } {
  const receiver = new SocketModeReceiver({ appToken, logLevel: LogLevel.ERROR, installerOptions: { clientOptions } });
  let connected = false;
  receiver.client.on('connected', () => {
    connected = true;
  });
  for (const state of ['connecting', 'reconnecting', 'disconnecting', 'disconnected']) {
    receiver.client.on(state, () => {
      connected = false;
    });
  }
  // The socket dropped: the client waits a while before it says `reconnecting`. A late close of a
  // replaced socket leaves the live one alone.
  receiver.client.on('close', () => {
    if (!receiver.client.websocket?.isActive()) connected = false;
  });
  return { receiver, isConnected: () => connected };
}

/** Rate limits, 5xx and dropped connections are worth another try; Slack's own errors are not. */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: string; statusCode?: number } | undefined)?.code;
  const status = (error as { statusCode?: number } | undefined)?.statusCode ?? 0;
  return (
    code === 'slack_webapi_rate_limited_error' ||
    code === 'slack_webapi_request_error' ||
    (code === 'slack_webapi_http_error' && status >= 500)
  );
}
