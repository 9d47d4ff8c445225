/** The chat adapters built from the config: part of the composition root. */
import { DiscordAdapter } from '../../adapters/discord/discord-adapter.js';
import { SlackAdapter } from '../../adapters/slack/slack-adapter.js';
import type { DiscordSettings, SlackSettings } from '../base/config.js';
import type { Logger } from '../base/logger.js';
import type { TallyDirectory, ThreadKey } from '../ports/chat.js';
import type { Store } from '../ports/store.js';

/** What an adapter needs of tally. */
export interface AdapterContext {
  /** Whether a thread has a session in the store (threads tally takes part in). */
  isKnownThread: (threadKey: ThreadKey) => Promise<boolean>;
  /** The store, for what the adapter must remember across restarts. */
  memory: Store;
  /** A person's sessions, starter prompts and default settings. */
  directory: TallyDirectory;
  /** The Slack user groups the access policy names, whose members the Slack adapter looks up. */
  usergroups?: readonly string[];
}

export function slackAdapter(
  settings: SlackSettings,
  logger: Logger,
  { isKnownThread, memory, directory, usergroups }: AdapterContext,
  pacing: {
    /** Pause between two posts to one channel; Slack allows about one per second. */
    minIntervalMs?: number;
    /** Least time between two calls to one streamed message. */
    streamIntervalMs?: number;
    /** How long a user group's members are cached. */
    usergroupTtlMs?: number;
  } = {},
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
    directory,
    ...(usergroups?.length ? { usergroups } : {}),
    ...(pacing.minIntervalMs !== undefined ? { minIntervalMs: pacing.minIntervalMs } : {}),
    ...(pacing.streamIntervalMs !== undefined ? { streamIntervalMs: pacing.streamIntervalMs } : {}),
    ...(pacing.usergroupTtlMs !== undefined ? { usergroupTtlMs: pacing.usergroupTtlMs } : {}),
    logger: logger.child({ component: 'slack' }),
  });
}

export function discordAdapter(
  settings: DiscordSettings,
  logger: Logger,
  { isKnownThread, memory, directory }: AdapterContext,
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
    directory,
    logger: logger.child({ component: 'discord' }),
  });
}
