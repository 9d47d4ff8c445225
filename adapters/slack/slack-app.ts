/**
 * The Bolt app tally runs on (Socket Mode with an app token, else the HTTP Events API), with the
 * Web API retries set explicitly, whether Slack can reach it now, and which Web API errors the post
 * queue tries again.
 */
import { App, LogLevel, SocketModeReceiver } from '@slack/bolt';

/** What the app is built from: the fields of `SlackAdapterOptions` that say so (documented there). */
export interface SlackAppOptions {
  botToken: string;
  appToken?: string;
  signingSecret?: string;
  port?: number;
  apiUrl?: string;
  retries?: number;
}

export interface SlackApp {
  app: App;
  /**
   * Socket Mode: the connection has been greeted (`hello`) and is not reconnecting. HTTP events have no
   * connection: always true (the adapter knows whether it listens).
   */
  isConnected(): boolean;
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
  if (options.appToken) {
    // Built here rather than by `socketMode: true`, so that its client's connection states can be followed.
    const receiver = new SocketModeReceiver({
      appToken: options.appToken,
      logLevel: LogLevel.ERROR,
      installerOptions: { clientOptions },
    });
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
    const app = new App({ token: options.botToken, receiver, clientOptions, logLevel: LogLevel.ERROR });
    return { app, isConnected: () => connected };
  }
  const app = new App({
    token: options.botToken,
    signingSecret: options.signingSecret ?? '',
    port: options.port ?? 3000,
    clientOptions,
    logLevel: LogLevel.ERROR,
  });
  return { app, isConnected: () => true };
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
