/**
 * Slack's AI-app surfaces and edited messages end to end: the real Bolt app (Socket Mode) against
 * the Slack stand-in, the real sandbox, MariaDB with telco_db and the scripted model. An assistant
 * thread is greeted with suggested prompts and titled by its first message; App Home lists the
 * session; `/tally` starts one in a channel and answers `sessions` / `settings` for one person; an
 * edit of a queued message runs as edited, and an edit of one that ran is offered again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import { ACTION_IDS, type Inbound } from '../../src/ports/chat.js';
import { shownForRequest } from '../support/shown-for-request.js';
import type { SlackMessage } from '../support/slack/slack-state.js';
import {
  ALLOWED_CHANNEL,
  OTHER_CHANNEL,
  type SlackTallyFixture,
  startSlackTallyFixture,
} from '../support/slack-tally-fixture.js';

const ANN = 'U1ANN';
const BOB = 'U2BOB';

/** What the person wrote last, as the model received it. */
/** What the model was shown for the request it works on (its message, and the playbook's guidance when one fits). */
const lastUserText = (context: ScriptContext) => shownForRequest(context);
const seenByModel: Record<string, string> = {};

/** The first turn of the edit scenario waits at the model until the test lets it go. */
let reachedHeldStep: () => void = () => {};
const heldStepReached = new Promise<void>((resolve) => {
  reachedHeldStep = resolve;
});
let releaseHeldStep: () => void = () => {};
const heldStepReleased = new Promise<void>((resolve) => {
  releaseHeldStep = resolve;
});

let fixture: SlackTallyFixture;
/** Every inbound the adapter handed to tally, and those tally finished handling. */
const received: Inbound[] = [];
const handled: Inbound[] = [];

const botMessages = (channel: string, threadTs: string) =>
  fixture.slack.messages(channel, threadTs).filter((message) => message.user === fixture.slack.ids.botUserId);
const botSaid = (channel: string, threadTs: string, text: string) =>
  botMessages(channel, threadTs).find((message: SlackMessage) => message.text.includes(text));

/** Polls an async probe (the store is not part of the stand-in's state). */
async function until(probe: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the condition never held');
}

beforeAll(async () => {
  // Clear requests: no triage, the first request answers.
  fixture = await startSlackTallyFixture([
    // The assistant thread: a section drafted, accepted, then the answer.
    callTool('draft_section', {
      title: 'Contract drives churn',
      stage: 'drivers',
      markdown: 'Month-to-month contracts churn most.',
    }),
    say('The section is in the report.'),
    // /tally <question>
    (context) => {
      seenByModel.command = lastUserText(context);
      return say('Answered in the /tally thread.');
    },
    // The edit of a queued message: the first turn is held at the model while the second message waits.
    async () => {
      reachedHeldStep();
      await heldStepReleased;
      return say('First answer.');
    },
    (context) => {
      seenByModel.queued = lastUserText(context);
      return say('Second answer.');
    },
    // Run again, after an edit of a message that had run.
    (context) => {
      seenByModel.rerun = lastUserText(context);
      return say('Rerun answer.');
    },
  ]);
  const { adapter, tally } = fixture.service;
  adapter.onInbound(async (inbound) => {
    received.push(inbound);
    await tally.router.handle(inbound);
    handled.push(inbound);
  });
}, 180_000);
afterAll(async () => {
  releaseHeldStep();
  await fixture?.close();
});

describe("Slack's AI-app surfaces", () => {
  let assistant = { channel: '', threadTs: '' };

  it('greets a new assistant thread and suggests prompts built from the databases and playbooks', async () => {
    assistant = await fixture.slack.startAssistantThread({ user: ANN, contextChannel: ALLOWED_CHANNEL });
    const greeting = await fixture.slack.waitFor(() => botSaid(assistant.channel, assistant.threadTs, "I'm tally"));
    expect(greeting.thread_ts).toBe(assistant.threadTs);
    const thread = await fixture.slack.waitFor(() =>
      fixture.slack.assistantThread(assistant.channel, assistant.threadTs),
    );
    const messages = thread.prompts?.map((prompt) => prompt.message) ?? [];
    expect(messages).toHaveLength(4);
    expect(messages[0]).toMatch(/^Are the \w+ tables consistent\?$/);
    expect(messages).toContain('What drives churn?');
    expect(thread.title).toBeUndefined();
  });

  it('names the thread after its first message, and answers in it like any thread', async () => {
    const request = 'What drives churn in the telco data?\nUse the contract types.';
    const ts = await fixture.slack.directMessage({ user: ANN, text: request, threadTs: assistant.threadTs });
    await fixture.slack.waitFor(
      () => fixture.slack.assistantThread(assistant.channel, assistant.threadTs)?.title,
      60_000,
    );
    expect(fixture.slack.assistantThread(assistant.channel, assistant.threadTs)?.title).toBe(
      'What drives churn in the telco data?',
    );
    const review = await fixture.slack.waitFor(
      () => botSaid(assistant.channel, assistant.threadTs, 'Contract drives churn'),
      60_000,
    );
    expect(received.find((inbound) => inbound.text === request)?.messageId).toBe(ts);
    await fixture.slack.click({
      user: ANN,
      channel: assistant.channel,
      messageTs: review.ts,
      actionId: ACTION_IDS.accept,
    });
    await fixture.slack.waitFor(
      () => botSaid(assistant.channel, assistant.threadTs, 'The section is in the report.'),
      60_000,
    );
    expect(fixture.slack.callsTo('assistant.threads.setTitle')).toHaveLength(1);
  });

  it('lists the session on the App Home tab: its request, status and sections accepted, with a link', async () => {
    await fixture.service.tally.router.idle();
    await fixture.slack.openAppHome({ user: ANN });
    const home = await fixture.slack.waitFor(() => fixture.slack.homeView(ANN));
    const shown = JSON.stringify(home.view.blocks);
    const link = `https://${fixture.slack.ids.teamDomain}.slack.com/archives/${assistant.channel}/p${assistant.threadTs.replace('.', '')}`;
    expect(shown).toContain(
      `*<${link}|What drives churn in the telco data? Use the contract types.>*\\nidle · 1 section accepted`,
    );
    expect(shown).toContain('Default settings');
    expect(shown).toContain('temperature: ');
    expect(fixture.slack.homeView(BOB)).toBeUndefined();
  });

  it('/tally <question> starts a session in the channel: a root message, then the answer in its thread', async () => {
    const click = await fixture.slack.slashCommand({
      user: BOB,
      channel: ALLOWED_CHANNEL,
      command: '/tally',
      text: 'How many customers churned last year?',
    });
    expect(click.ack).toEqual({});
    const root = await fixture.slack.waitFor(() =>
      fixture.slack
        .messages(ALLOWED_CHANNEL)
        .find((message) => message.text.startsWith(`<@${BOB}> asked with /tally:`)),
    );
    expect(root.text).toContain('> How many customers churned last year?');
    expect(root.thread_ts).toBeUndefined();
    await fixture.slack.waitFor(() => botSaid(ALLOWED_CHANNEL, root.ts, 'Answered in the /tally thread.'), 60_000);
    expect(seenByModel.command).toContain('How many customers churned last year?');
  });

  it('/tally sessions and /tally settings answer only the person who asked', async () => {
    await fixture.service.tally.router.idle();
    await fixture.slack.slashCommand({ user: BOB, channel: ALLOWED_CHANNEL, command: '/tally', text: 'sessions' });
    const sessions = await fixture.slack.waitFor(() =>
      fixture.slack.ephemerals(BOB).find((message) => message.text.startsWith('*Your recent sessions*')),
    );
    expect(sessions.via).toBe('response_url');
    expect(sessions.text).toContain('How many customers churned last year?');
    expect(sessions.text).toContain('idle · 0 sections accepted');
    expect(sessions.text).not.toContain('What drives churn'); // Ann's session, not Bob's

    const settings = await fixture.slack.slashCommand({
      user: BOB,
      channel: ALLOWED_CHANNEL,
      command: '/tally',
      text: 'settings',
    });
    expect(settings.ack).toMatchObject({ response_type: 'ephemeral' });
    expect(String(settings.ack.text)).toContain('temperature: ');
    expect(String(settings.ack.text)).toContain('set name=value');
    const help = await fixture.slack.slashCommand({ user: BOB, channel: ALLOWED_CHANNEL, command: '/tally', text: '' });
    expect(String(help.ack.text)).toContain('/tally <question>');
  });

  it('/tally in a channel tally does not work in explains itself and starts nothing', async () => {
    const before = fixture.slack.messages(OTHER_CHANNEL).length;
    await fixture.slack.slashCommand({ user: BOB, channel: OTHER_CHANNEL, command: '/tally', text: 'Any churn?' });
    await fixture.slack.waitFor(() =>
      fixture.slack.ephemerals(BOB).find((message) => message.text.includes('not enabled in this channel')),
    );
    expect(fixture.slack.messages(OTHER_CHANNEL)).toHaveLength(before);
  });
});

describe('edited messages on Slack', () => {
  let threadTs = '';

  it('runs a queued message as edited', async () => {
    threadTs = await fixture.slack.mention({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      text: 'Describe the customers table',
    });
    await heldStepReached;
    const queuedTs = await fixture.slack.reply({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      threadTs,
      text: 'count the customers',
    });
    // The reply is in the thread's inbox before it is edited (a person takes longer than that).
    const threadKey = fixture.threadKey(threadTs);
    await until(async () => (await fixture.service.tally.store.range(`inbox:${threadKey}`)).length === 2);
    await fixture.slack.editMessage({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      ts: queuedTs,
      text: 'count the churned customers',
    });
    await fixture.slack.waitFor(() => handled.find((inbound) => inbound.edited));
    expect(handled.find((inbound) => inbound.edited)).toMatchObject({
      threadKey,
      messageId: queuedTs,
      text: 'count the churned customers',
    });
    releaseHeldStep();
    await fixture.slack.waitFor(() => botSaid(ALLOWED_CHANNEL, threadTs, 'Second answer.'), 60_000);
    expect(seenByModel.queued).toContain('count the churned customers');
    expect(seenByModel.queued).not.toContain('count the customers');
    expect(botSaid(ALLOWED_CHANNEL, threadTs, 'Run the edited version')).toBeUndefined();
    expect(received.find((inbound) => inbound.text === 'Describe the customers table')?.messageId).toBe(threadTs);
  });

  it('offers to run a message that already ran again, and runs the edited text on the click', async () => {
    await fixture.service.tally.router.idle();
    await fixture.slack.editMessage({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      ts: threadTs,
      text: `<@${fixture.slack.ids.botUserId}> Describe the contracts table`,
    });
    const offer = await fixture.slack.waitFor(
      () => botSaid(ALLOWED_CHANNEL, threadTs, 'Run the edited version?'),
      60_000,
    );
    expect(offer.text).toContain('> Describe the contracts table');
    await fixture.slack.click({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      messageTs: offer.ts,
      actionId: ACTION_IDS.rerun,
    });
    await fixture.slack.waitFor(() => botSaid(ALLOWED_CHANNEL, threadTs, 'Rerun answer.'), 60_000);
    expect(seenByModel.rerun).toContain('Describe the contracts table');
    // A second click does not run it twice.
    await fixture.slack.click({ user: ANN, channel: ALLOWED_CHANNEL, messageTs: offer.ts, actionId: ACTION_IDS.rerun });
    await fixture.slack.waitFor(() => botSaid(ALLOWED_CHANNEL, threadTs, 'That edit has already run'), 60_000);
    expect(
      botMessages(ALLOWED_CHANNEL, threadTs).filter((message) => message.text.includes('Rerun answer.')),
    ).toHaveLength(1);
  });
});
