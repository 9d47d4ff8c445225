/**
 * tally services for end-to-end tests that start several on one store (replicas, a restart): `serveChat`
 * on the Slack or Discord stand-in, with the platform named and, when given, a schedules file and a fake
 * clock, so due times fire by moving the clock.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DiscordAdapter } from '../../adapters/discord/discord-adapter.js';
import type { SlackAdapter } from '../../adapters/slack/slack-adapter.js';
import { loadConfig } from '../../src/base/config.js';
import { createLogger } from '../../src/base/logger.js';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import { discordAdapter, slackAdapter } from '../../src/wiring/chat-adapters.js';
import { type ChatService, serveChat } from '../../src/wiring/serve-chat.js';
import type { DiscordStandIn } from './discord/discord-stand-in.js';
import type { FakeClock } from './fake-clock.js';
import type { SlackStandIn } from './slack/slack-stand-in.js';
import type { TestEnvironment } from './test-environment.js';

export interface ScheduledServiceOptions {
  environment: TestEnvironment;
  modelUrl: string;
  /** The schedules file (TALLY_SCHEDULES); default none. */
  schedulesFile?: string;
  /** The schedules' and retention's clock; default the system's. */
  clock?: FakeClock;
  /** More environment, e.g. REDIS_URL and a TALLY_INSTANCE per replica. */
  env?: Record<string, string>;
  /** How long the Slack adapter caches a user group's members; default the adapter's (5 minutes). */
  usergroupTtlMs?: number;
}

/** Writes `schedules` as the YAML file `name` in the folder and returns its path. */
export async function writeSchedules(folder: string, schedules: object[], name = 'schedules.yaml'): Promise<string> {
  const path = join(folder, name);
  const yaml = schedules
    .map((entry) =>
      Object.entries(entry)
        .map(([key, value], index) => `${index === 0 ? '  - ' : '    '}${key}: ${JSON.stringify(value)}`)
        .join('\n'),
    )
    .join('\n');
  await writeFile(path, `schedules:\n${yaml}\n`);
  return path;
}

function configFor(options: ScheduledServiceOptions, platformEnv: Record<string, string>) {
  return loadConfig({
    ...options.environment.env(options.modelUrl),
    ...platformEnv,
    ...(options.schedulesFile ? { TALLY_SCHEDULES: options.schedulesFile } : {}),
    ...options.env,
  });
}

export async function serveScheduledSlack(
  slack: SlackStandIn,
  allowedChannel: string,
  options: ScheduledServiceOptions,
): Promise<ChatService<SlackAdapter>> {
  const config = configFor(options, {
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    SLACK_API_URL: slack.apiUrl,
    SLACK_ALLOWED_CHANNELS: allowedChannel,
  });
  const logger = createLogger({ level: config.logLevel });
  const settings = config.slack;
  if (!settings) throw new Error('the Slack settings did not load');
  return serveChat({
    config,
    logger,
    llm: createLlmClient(config.llm, logger),
    createAdapter: (context) =>
      slackAdapter(settings, logger, context, {
        minIntervalMs: 0,
        ...(options.usergroupTtlMs === undefined ? {} : { usergroupTtlMs: options.usergroupTtlMs }),
      }),
    platform: 'slack',
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

export async function serveScheduledDiscord(
  discord: DiscordStandIn,
  allowedChannel: string,
  options: ScheduledServiceOptions,
): Promise<ChatService<DiscordAdapter>> {
  const config = configFor(options, {
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_GUILD_ID: discord.ids.guildId,
    DISCORD_ALLOWED_CHANNELS: allowedChannel,
  });
  const logger = createLogger({ level: config.logLevel });
  const settings = config.discord;
  if (!settings) throw new Error('the Discord settings did not load');
  return serveChat({
    config,
    logger,
    llm: createLlmClient(config.llm, logger),
    createAdapter: (context) => discordAdapter(settings, logger, context),
    platform: 'discord',
    ...(options.clock ? { clock: options.clock } : {}),
  });
}
