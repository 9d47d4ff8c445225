/** The chat adapters built from the config: part of the composition root. */
import { DiscordAdapter } from '../adapters/discord/discord-adapter.js';
import { SlackAdapter } from '../adapters/slack/slack-adapter.js';
import type { DiscordSettings, SlackSettings } from './config.js';
import type { Logger } from './logger.js';
import type { ThreadKey } from './ports/chat.js';
import type { Store } from './ports/store.js';

type KnownThread = (threadKey: ThreadKey) => Promise<boolean>;

export function slackAdapter(
  settings: SlackSettings,
  logger: Logger,
  isKnownThread: KnownThread,
  memory: Store,
  /** Pause between two posts to one channel; Slack allows about one per second. */
  minIntervalMs?: number,
): SlackAdapter {
  return new SlackAdapter({
    botToken: settings.botToken,
    ...(settings.appToken ? { appToken: settings.appToken } : {}),
    ...(settings.signingSecret ? { signingSecret: settings.signingSecret } : {}),
    port: settings.port,
    ...(settings.apiUrl ? { apiUrl: settings.apiUrl } : {}),
    allowedChannels: settings.allowedChannels,
    allowedUsers: settings.allowedUsers,
    isKnownThread,
    memory,
    ...(minIntervalMs !== undefined ? { minIntervalMs } : {}),
    logger: logger.child({ component: 'slack' }),
  });
}

export function discordAdapter(
  settings: DiscordSettings,
  logger: Logger,
  isKnownThread: KnownThread,
  memory: Store,
): DiscordAdapter {
  return new DiscordAdapter({
    token: settings.token,
    ...(settings.guildId ? { guildId: settings.guildId } : {}),
    ...(settings.apiUrl ? { apiUrl: settings.apiUrl } : {}),
    allowedGuilds: settings.allowedGuilds,
    allowedChannels: settings.allowedChannels,
    reviewerRoles: settings.reviewerRoles,
    isKnownThread,
    memory,
    logger: logger.child({ component: 'discord' }),
  });
}
