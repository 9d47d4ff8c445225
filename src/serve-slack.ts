/**
 * `tally slack`: tally connected to a Slack workspace. A composition root like create-tally.ts:
 * builds the Slack adapter from the config and wires it to the session router.
 */
import { SlackAdapter } from '../adapters/slack/slack-adapter.js';
import type { Config, SlackSettings } from './config.js';
import { createTally, type Tally } from './create-tally.js';
import type { Logger } from './logger.js';
import type { LlmClient } from './ports/llm.js';
import { type SessionRecord, sessionKey } from './sessions/session-record.js';

export interface SlackService {
  tally: Tally;
  adapter: SlackAdapter;
  close(): Promise<void>;
}

export async function serveSlack(options: {
  config: Config;
  slack: SlackSettings;
  logger: Logger;
  llm: LlmClient;
  /** Pause between two posts to one channel; Slack allows about one per second. */
  minIntervalMs?: number;
}): Promise<SlackService> {
  const { config, slack, logger } = options;
  let adapter: SlackAdapter | undefined;
  const tally = await createTally({
    config,
    logger,
    llm: options.llm,
    post: (threadKey, post) => {
      if (!adapter) throw new Error('the Slack adapter is not ready');
      return adapter.post(threadKey, post);
    },
  });
  adapter = new SlackAdapter({
    botToken: slack.botToken,
    ...(slack.appToken ? { appToken: slack.appToken } : {}),
    ...(slack.signingSecret ? { signingSecret: slack.signingSecret } : {}),
    port: slack.port,
    ...(slack.apiUrl ? { apiUrl: slack.apiUrl } : {}),
    allowedChannels: slack.allowedChannels,
    allowedUsers: slack.allowedUsers,
    isKnownThread: async (threadKey) => (await tally.store.get<SessionRecord>(sessionKey(threadKey))) !== undefined,
    ...(options.minIntervalMs !== undefined ? { minIntervalMs: options.minIntervalMs } : {}),
    logger: logger.child({ component: 'slack' }),
  });
  adapter.onInbound((inbound) => tally.router.handle(inbound));
  try {
    await adapter.start();
  } catch (error) {
    await tally.close();
    throw error;
  }
  const started = adapter;
  return {
    tally,
    adapter: started,
    async close() {
      await tally.router.idle();
      await started.stop();
      await tally.close();
    },
  };
}
