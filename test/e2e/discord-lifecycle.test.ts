/**
 * `tally discord` as an operator runs it (a separate process on a Redis store), SIGKILLed while a turn waits on the
 * model after its progress message was posted, then a new process: it finishes that message, once, and marks the
 * dead process's half-edited progress message as stopped (keeping its last picture) instead of leaving it
 * "Working…" for ever. The Discord stand-in (REST and gateway, to the unmodified discord.js), the scripted model,
 * MariaDB, Redis and the Docker engine are real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEFT_OPEN_HEADER } from '../../adapters/discord/discord-progress-text.js';
import { discordThreadKey } from '../../adapters/discord/discord-thread-key.js';
import {
  callTool,
  type ScriptedModelServer,
  type ScriptStep,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { openPostKey } from '../../src/ports/chat.js';
import { type DiscordStandIn, startDiscordStandIn } from '../support/discord/discord-stand-in.js';
import { heldReply } from '../support/held-reply.js';
import { createRedisTestSpace, type RedisTestSpace } from '../support/redis.js';
import { eventually } from '../support/redis-processes.js';
import { startTallyProcess, type TallyProcess } from '../support/tally-process.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

const CHANNEL = '1300000000000000500';
const OWNER = '1300000000000000101';
const LOCK_TTL_MS = 3000;

let environment: TestEnvironment;
let redis: RedisTestSpace;
let discord: DiscordStandIn;
let model: ScriptedModelServer;
const children: TallyProcess[] = [];
const hung = heldReply('this reply goes to a dead process');

const script: ScriptStep[] = [
  callTool('triage', { verdict: 'answerable' }),
  callTool('run_python', { code: 'x = 41' }),
  // The first process waits here, its progress message showing the cell, and is killed meanwhile.
  hung.step,
  callTool('run_python', { code: 'print(x + 1)' }),
  (context) => say(`The answer is ${context.lastToolResult?.content.match(/\d+/)?.[0]}.`),
];

function start(): TallyProcess {
  const child = startTallyProcess(['discord'], {
    ...environment.env(model.url),
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_GUILD_ID: discord.ids.guildId,
    DISCORD_ALLOWED_CHANNELS: CHANNEL,
    REDIS_URL: redis.url,
    TALLY_REDIS_PREFIX: redis.keyPrefix,
    TALLY_LOCK_TTL_MS: String(LOCK_TTL_MS),
    TALLY_HTTP_PORT: '0',
    LOG_LEVEL: 'warn',
  });
  children.push(child);
  return child;
}

beforeAll(async () => {
  environment = await createTestEnvironment('discordlife');
  redis = await createRedisTestSpace('discord-lifecycle');
  model = await startScriptedModelServer({ script });
  discord = await startDiscordStandIn({ channels: [{ id: CHANNEL, name: 'analytics' }] });
}, 180_000);

afterAll(async () => {
  hung.release();
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map((child) => child.exited));
  await discord?.close();
  await model?.close();
  await redis?.cleanup();
  await environment?.close(); // fails if a container of the instance was left behind
}, 120_000);

describe('tally discord as a process', () => {
  it('killed mid-turn: the next process finishes the message and stops the half-edited progress message', async () => {
    const first = start();
    await discord.connected();
    await discord.waitFor(() => JSON.stringify(discord.commands(discord.ids.guildId)).includes('"analyze"'), 60_000);
    const before = discord.threads().length;
    await discord.slashCommand({
      user: OWNER,
      channel: CHANNEL,
      name: 'analyze',
      options: { question: 'x plus one?' },
    });
    const threadId = (await discord.waitFor(() => discord.threads()[before], 60_000)).id;
    const botMessages = () =>
      discord.messages(threadId).filter((message) => message.author.id === discord.ids.botUserId);
    await hung.reached;
    // The progress message is up and on record in the store before the process dies.
    const progress = await discord.waitFor(
      () => botMessages().find((message) => message.content.startsWith('**Working…**')),
      30_000,
    );
    const record = `${redis.keyPrefix}:kv:${openPostKey(discordThreadKey(discord.ids.guildId, threadId))}`;
    await eventually('the progress message is on record', async () => (await redis.client.exists(record)) === 1);
    first.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    hung.release();

    const second = start();
    await discord.waitFor(() => botMessages().some((message) => message.content.startsWith('The answer is')), 90_000);
    const texts = botMessages().map((message) => message.content);
    expect(texts.filter((text) => text.startsWith('The answer is'))).toEqual(['The answer is 42.']);
    // The dead process's progress message says it stopped and where the work went on, with its last picture.
    const stopped = discord.findMessage(progress.id)?.content ?? '';
    expect(stopped.split('\n')[0]).toBe(LEFT_OPEN_HEADER);
    expect(stopped).toContain('Run Python');
    // The new process's own progress message ended, and nothing is left on record.
    await discord.waitFor(
      () => botMessages().some((message) => message.id !== progress.id && message.content.startsWith('**Done**')),
      30_000,
    );
    expect(botMessages().filter((message) => message.content.startsWith('**Working…**'))).toEqual([]);
    await eventually('nothing is on record', async () => (await redis.client.exists(record)) === 0);
    expect(second.output()).not.toMatch(/"level":(50|60)/); // no error logged
    second.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 240_000);
});
