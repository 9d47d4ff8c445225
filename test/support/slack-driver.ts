/** The shared chat scenario on Slack: Bolt in Socket Mode against the Slack stand-in. */

import type { ScriptStep } from '../../src/demo/scripted-model-server.js';
import { ACTION_IDS } from '../../src/ports/chat.js';
import type { ChatDriver, Control } from './chat-driver.js';
import { ALLOWED_CHANNEL, type SlackTallyFixture, startSlackTallyFixture } from './slack-tally-fixture.js';

const REACTION = { accept: 'white_check_mark', revise: 'pencil2', discard: 'wastebasket' } as const;

export function slackDriver(): ChatDriver {
  let fixture: SlackTallyFixture | undefined;
  let threadTs = '';
  let formsSeen = 0;
  const slack = () => {
    if (!fixture) throw new Error('start the Slack driver first');
    return fixture.slack;
  };
  const botMessages = () =>
    slack()
      .messages(ALLOWED_CHANNEL, threadTs)
      .filter((message) => message.user === slack().ids.botUserId);
  const latest = (marker: string) => {
    const found = botMessages().findLast((message) => message.text.includes(marker));
    if (!found) throw new Error(`no message of tally contains '${marker}'`);
    return found;
  };
  const controlValue = (message: { blocks?: unknown[] }, actionId: string) => {
    const elements = (message.blocks ?? []).flatMap((block) => (block as { elements?: unknown[] }).elements ?? []);
    const element = elements.find((candidate) => (candidate as { action_id?: string }).action_id === actionId) as
      | { value?: string }
      | undefined;
    return element?.value ?? '';
  };

  return {
    async start(script: ScriptStep[]) {
      fixture = await startSlackTallyFixture(script);
    },
    async ask(user, question) {
      threadTs = await slack().mention({ user, channel: ALLOWED_CHANNEL, text: question });
    },
    async reply(user, text) {
      await slack().reply({ user, channel: ALLOWED_CHANNEL, threadTs, text });
    },
    async press(user, marker, control: Control) {
      const message = latest(marker);
      const actionId = ACTION_IDS[control];
      formsSeen = slack().views().length;
      await slack().click({
        user,
        channel: ALLOWED_CHANNEL,
        messageTs: message.ts,
        actionId,
        value: controlValue(message, actionId),
      });
    },
    async submitForm(user, text) {
      const view = await slack().waitFor(() => slack().views()[formsSeen], 60_000);
      const field = JSON.stringify(view.view).includes('"block_id":"code"') ? 'code' : 'feedback';
      await slack().submitView({ user, viewId: view.id, values: { [field]: { [field]: text } } });
    },
    async react(user, marker, control) {
      await slack().react({ user, channel: ALLOWED_CHANNEL, ts: latest(marker).ts, reaction: REACTION[control] });
    },
    thread() {
      return {
        texts: botMessages().map((message) => message.text),
        files: slack()
          .files()
          .filter((file) => file.threadTs === threadTs && file.bytes)
          .map((file) => ({
            name: file.name,
            bytes: file.bytes ?? Buffer.alloc(0),
            ...(file.altText ? { description: file.altText } : {}),
          })),
      };
    },
    noticesFor(user) {
      return slack()
        .ephemerals(user)
        .map((message) => message.text);
    },
    waitFor(probe, timeoutMs = 60_000) {
      return slack().waitFor(probe, timeoutMs);
    },
    async close() {
      await fixture?.close();
    },
  };
}
