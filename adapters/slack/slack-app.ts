/**
 * The Bolt app tally runs on (Socket Mode with an app token, else the HTTP Events API), with the
 * Web API retries set explicitly, and which Web API errors the post queue tries again.
 */
import { App, LogLevel } from '@slack/bolt';

/** What the app is built from: the fields of `SlackAdapterOptions` that say so (documented there). */
export interface SlackAppOptions {
  botToken: string;
  appToken?: string;
  signingSecret?: string;
  port?: number;
  apiUrl?: string;
  retries?: number;
}

export function createSlackApp(options: SlackAppOptions): App {
  if (!options.appToken && !options.signingSecret) {
    throw new Error('Slack needs SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP events)');
  }
  const clientOptions = {
    ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
    // Set explicitly: Socket Mode would otherwise leave every client with 100 retries.
    retryConfig: { retries: options.retries ?? 5, factor: 2, minTimeout: 200, maxTimeout: 30_000 },
  };
  return options.appToken
    ? new App({
        token: options.botToken,
        appToken: options.appToken,
        socketMode: true,
        clientOptions,
        logLevel: LogLevel.ERROR,
      })
    : new App({
        token: options.botToken,
        signingSecret: options.signingSecret ?? '',
        port: options.port ?? 3000,
        clientOptions,
        logLevel: LogLevel.ERROR,
      });
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
