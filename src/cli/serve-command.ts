/** `tally slack` / `tally discord`: tally connected to the platform, served until SIGINT or SIGTERM. */

import { type DiscordSettings, loadConfig, type SlackSettings } from '../base/config.js';
import { createLogger } from '../base/logger.js';
import { createLlmClient } from '../llm/create-llm-client.js';
import { discordAdapter, slackAdapter } from '../wiring/chat-adapters.js';
import { serveChat } from '../wiring/serve-chat.js';

/** Where `tally slack` and `tally discord` serve /healthz, /readyz and /metrics unless TALLY_HTTP_PORT says otherwise. */
const DEFAULT_HTTP_PORT = 9464;

export async function serveCommand(platform: 'slack' | 'discord', words: readonly string[]): Promise<number> {
  if (words.length > 0) {
    process.stderr.write(`tally ${platform}: unknown flag ${words[0]} (it takes none; see tally ${platform} --help)\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  const slack = config.slack;
  const discord = config.discord;
  if (platform === 'slack' ? !slack : !discord) {
    const needs =
      platform === 'slack' ? 'SLACK_BOT_TOKEN and SLACK_APP_TOKEN (or SLACK_SIGNING_SECRET)' : 'DISCORD_TOKEN';
    process.stderr.write(`tally ${platform} needs ${needs}; see the README\n`);
    return 2;
  }
  if (!config.llm.baseUrl) {
    process.stderr.write(`tally ${platform} needs a model: set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL)\n`);
    return 2;
  }
  const logger = createLogger({ level: config.logLevel });
  const service = await serveChat({
    config,
    logger,
    defaultHttpPort: DEFAULT_HTTP_PORT,
    requireReadonly: true,
    llm: createLlmClient(config.llm, logger.child({ component: 'llm' })),
    platform,
    createAdapter: (context) =>
      platform === 'slack'
        ? slackAdapter(slack as SlackSettings, logger, context)
        : discordAdapter(discord as DiscordSettings, logger, context),
  });
  logger.info({ platform, metrics: service.tally.ops?.url }, 'tally is connected');
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  // A second signal does not wait for the running turns (their messages stay in the inbox).
  const hurry = () => process.exit(1);
  process.once('SIGINT', hurry);
  process.once('SIGTERM', hurry);
  logger.info({ signal, graceMs: config.operations.shutdownGraceMs }, 'stopping: letting running turns finish');
  await service.close();
  return 0;
}
