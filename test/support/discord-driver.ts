/** The shared chat scenario on Discord: discord.js against the Discord stand-in. */

import type { ScriptStep } from '../../src/demo/scripted-model-server.js';
import { ACTION_IDS } from '../../src/ports/chat.js';
import type { ChatDriver, Control } from './chat-driver.js';
import { type DiscordTallyFixture, startDiscordTallyFixture } from './discord-tally-fixture.js';

const REACTION = { accept: '✅', revise: '✏️', discard: '🗑️' } as const;

/** The people of the scenario as Discord users (ids are snowflakes there). */
const SNOWFLAKES: Record<string, string> = { U1ANN: '1300000000000000101', U2BOB: '1300000000000000102' };
const snowflake = (user: string) => SNOWFLAKES[user] ?? user;

export function discordDriver(): ChatDriver {
  let fixture: DiscordTallyFixture | undefined;
  let threadId = '';
  let lastForm: { user: string; customId: string; interaction: string } | undefined;
  const discord = () => {
    if (!fixture) throw new Error('start the Discord driver first');
    return fixture.discord;
  };
  const botMessages = () =>
    discord()
      .messages(threadId)
      .filter((message) => message.author.id === discord().ids.botUserId);
  const latest = (marker: string) => {
    const found = botMessages().findLast((message) => message.content.includes(marker));
    if (!found) throw new Error(`no message of tally contains '${marker}'`);
    return found;
  };
  const customIdOf = (message: { components: unknown[] }, actionId: string) => {
    const buttons = message.components.flatMap(
      (row) => (row as { components?: Array<{ custom_id?: string }> }).components ?? [],
    );
    const button = buttons.find((candidate) => candidate.custom_id?.startsWith(`${actionId}|`));
    if (!button?.custom_id) throw new Error(`no ${actionId} button on the message`);
    return button.custom_id;
  };

  return {
    async start(script: ScriptStep[]) {
      fixture = await startDiscordTallyFixture(script);
    },
    async ask(user, question) {
      const before = discord().threads().length;
      await discord().slashCommand({
        user: snowflake(user),
        channel: discord().channelId,
        name: 'analyze',
        options: { question },
      });
      const thread = await discord().waitFor(() => discord().threads()[before], 30_000);
      threadId = thread.id;
    },
    async reply(user, text) {
      await discord().message({ user: snowflake(user), channel: threadId, content: text });
    },
    async press(user, marker, control: Control) {
      const message = latest(marker);
      const customId = customIdOf(message, ACTION_IDS[control]);
      const click = await discord().click({
        user: snowflake(user),
        channel: threadId,
        messageId: message.id,
        customId,
      });
      lastForm = { user: snowflake(user), customId, interaction: click.id };
    },
    async submitForm(user, text) {
      const pressed = lastForm;
      if (!pressed) throw new Error('no control was pressed');
      // The form opens as the click's answer; submit it once it is on the screen.
      await discord().waitFor(
        () =>
          discord()
            .interactionResponses(pressed.interaction)
            .some((response) => response.type === 9),
        60_000,
      );
      const [actionId, value] = pressed.customId.split('|');
      const form = actionId === ACTION_IDS.edit ? 'tally.edit' : 'tally.revise';
      const field = form === 'tally.edit' ? 'code' : 'feedback';
      await discord().submitModal({
        user: snowflake(user),
        channel: threadId,
        customId: `${form}|${value}`,
        fields: { [field]: text },
      });
    },
    async react(user, marker, control) {
      await discord().react({
        user: snowflake(user),
        channel: threadId,
        messageId: latest(marker).id,
        emoji: REACTION[control],
      });
    },
    thread() {
      return {
        texts: botMessages().map((message) => message.content),
        files: botMessages().flatMap((message) =>
          message.attachments.map((attachment) => ({
            name: attachment.filename,
            bytes: attachment.bytes,
            ...(attachment.description ? { description: attachment.description } : {}),
          })),
        ),
      };
    },
    noticesFor(user) {
      return discord()
        .ephemerals(snowflake(user))
        .map((message) => message.content);
    },
    waitFor(probe, timeoutMs = 60_000) {
      return discord().waitFor(probe, timeoutMs);
    },
    async close() {
      await fixture?.close();
    },
  };
}
