/**
 * tally on Slack for end-to-end tests: the unmodified Bolt app in Socket Mode against the Slack
 * stand-in, the real sandbox and MariaDB with telco_db, and the openai SDK against the scripted
 * model. Channel `C1ANALYTICS` is allowed, `C2RANDOM` is not. Everything is cleaned up by close().
 */

import type { SlackAdapter } from '../../adapters/slack/slack-adapter.js';
import { loadConfig } from '../../src/base/config.js';
import { createLogger } from '../../src/base/logger.js';
import {
  type ScriptedModelServer,
  type ScriptStep,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import { slackAdapter } from '../../src/wiring/chat-adapters.js';
import { type ChatService, serveChat } from '../../src/wiring/serve-chat.js';
import { cleanUp } from './clean-up.js';
import { type SlackStandIn, startSlackStandIn } from './slack/slack-stand-in.js';
import { createTestEnvironment, type TestEnvironment } from './test-environment.js';

export const ALLOWED_CHANNEL = 'C1ANALYTICS';
export const OTHER_CHANNEL = 'C2RANDOM';

export interface SlackTallyFixture {
  slack: SlackStandIn;
  server: ScriptedModelServer;
  service: ChatService<SlackAdapter>;
  /** The thread key tally uses for a thread of the allowed channel. */
  threadKey(threadTs: string, channel?: string): string;
  close(): Promise<void>;
}

export interface SlackTallyFixtureOptions {
  /** Least time between two calls to one streamed message; default the adapter's (400 ms). */
  streamIntervalMs?: number;
  /** How long a user group's members are cached; default the adapter's (5 minutes). */
  usergroupTtlMs?: number;
  /** Channels besides the two the fixture always has. */
  channels?: Array<{ id: string; name: string }>;
  /** Runs after the test database is made and before tally starts (e.g. to add tables); returns more env. */
  prepare?: (environment: TestEnvironment) => Promise<Record<string, string>>;
}

export async function startSlackTallyFixture(
  script: ScriptStep[],
  env: Record<string, string> = {},
  options: SlackTallyFixtureOptions = {},
): Promise<SlackTallyFixture> {
  const environment = await createTestEnvironment('slack');
  const server = await startScriptedModelServer({ script });
  const slack = await startSlackStandIn({
    channels: [
      { id: ALLOWED_CHANNEL, name: 'analytics' },
      { id: OTHER_CHANNEL, name: 'random' },
      ...(options.channels ?? []),
    ],
  });
  try {
    const prepared = (await options.prepare?.(environment)) ?? {};
    const config = loadConfig({
      ...environment.env(server.url),
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_APP_TOKEN: slack.appToken,
      SLACK_API_URL: slack.apiUrl,
      SLACK_ALLOWED_CHANNELS: ALLOWED_CHANNEL,
      ...env,
      ...prepared,
    });
    const logger = createLogger({ level: config.logLevel });
    const settings = config.slack;
    if (!settings) throw new Error('the Slack settings did not load');
    const service = await serveChat({
      config,
      logger,
      llm: createLlmClient(config.llm, logger),
      createAdapter: (context) =>
        slackAdapter(settings, logger, context, {
          minIntervalMs: 0,
          ...(options.streamIntervalMs === undefined ? {} : { streamIntervalMs: options.streamIntervalMs }),
          ...(options.usergroupTtlMs === undefined ? {} : { usergroupTtlMs: options.usergroupTtlMs }),
        }),
    });
    await slack.connected();
    return {
      slack,
      server,
      service,
      threadKey: (threadTs, channel = ALLOWED_CHANNEL) => `slack:${slack.ids.teamId}:${channel}:${threadTs}`,
      close: () =>
        cleanUp(
          () => service.close(),
          () => slack.close(),
          () => server.close(),
          () => environment.close(),
        ),
    };
  } catch (error) {
    await cleanUp(
      () => slack.close(),
      () => server.close(),
      () => environment.close(),
    );
    throw error;
  }
}
