/**
 * tally on Discord for end-to-end tests: the unmodified discord.js client against the Discord
 * stand-in, the real sandbox and MariaDB with telco_db, and the openai SDK against the scripted
 * model. Everything is cleaned up by close().
 */
import type { DiscordAdapter } from '../../adapters/discord/discord-adapter.js';
import { loadConfig } from '../../src/base/config.js';
import { createLogger } from '../../src/base/logger.js';
import {
  type ScriptedModelServer,
  type ScriptStep,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import { discordAdapter } from '../../src/wiring/chat-adapters.js';
import { type ChatService, serveChat } from '../../src/wiring/serve-chat.js';
import { cleanUp } from './clean-up.js';
import { type DiscordStandIn, startDiscordStandIn } from './discord/discord-stand-in.js';
import { createTestEnvironment, type TestEnvironment } from './test-environment.js';

/** Members of this role may decide in any thread. */
export const REVIEWER_ROLE = '1300000000000000900';
/** tally works in the first channel only. */
export const ALLOWED_CHANNEL = '1300000000000000500';
export const OTHER_CHANNEL = '1300000000000000501';

export interface DiscordTallyFixture {
  discord: DiscordStandIn;
  server: ScriptedModelServer;
  service: ChatService<DiscordAdapter>;
  close(): Promise<void>;
}

/** Extra environment for tally, or a function of the test environment that gives it (e.g. to write a file in its home). */
export type FixtureEnv =
  | Record<string, string>
  | ((environment: TestEnvironment) => Record<string, string> | Promise<Record<string, string>>);

export async function startDiscordTallyFixture(
  script: ScriptStep[],
  env: FixtureEnv = {},
): Promise<DiscordTallyFixture> {
  const environment = await createTestEnvironment('discord');
  const server = await startScriptedModelServer({ script });
  const discord = await startDiscordStandIn({
    channels: [
      { id: ALLOWED_CHANNEL, name: 'analytics' },
      { id: OTHER_CHANNEL, name: 'random' },
    ],
    roles: [{ id: REVIEWER_ROLE, name: 'analysts' }],
  });
  try {
    const config = loadConfig({
      ...environment.env(server.url),
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_GUILD_ID: discord.ids.guildId,
      DISCORD_REVIEWER_ROLES: REVIEWER_ROLE,
      DISCORD_ALLOWED_CHANNELS: ALLOWED_CHANNEL,
      ...(typeof env === 'function' ? await env(environment) : env),
    });
    const logger = createLogger({ level: config.logLevel });
    const settings = config.discord;
    if (!settings) throw new Error('the Discord settings did not load');
    const service = await serveChat({
      config,
      logger,
      llm: createLlmClient(config.llm, logger),
      createAdapter: (context) => discordAdapter(settings, logger, context),
    });
    return {
      discord,
      server,
      service,
      close: () =>
        cleanUp(
          () => service.close(),
          () => discord.close(),
          () => server.close(),
          () => environment.close(),
        ),
    };
  } catch (error) {
    await cleanUp(
      () => discord.close(),
      () => server.close(),
      () => environment.close(),
    );
    throw error;
  }
}
