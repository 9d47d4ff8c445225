/**
 * The Slack stand-in's app surfaces against the unmodified SDK: assistant threads (the event, the
 * suggested prompts and title methods with Slack's checks), Home tabs (`app_home_opened`,
 * `views.publish`) and edits (`message_changed`).
 */
import { App, LogLevel } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanUp } from '../support/clean-up.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';

const USER = 'U1ANN';
let slack: SlackStandIn;
let app: App;
const events: Array<Record<string, unknown>> = [];

const errorOf = (call: Promise<unknown>) =>
  call.then(
    () => 'ok',
    (error: { data?: { error?: string } }) => error.data?.error,
  );

beforeEach(async () => {
  slack = await startSlackStandIn();
  app = new App({
    token: slack.botToken,
    appToken: slack.appToken,
    socketMode: true,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } },
  });
  for (const type of ['assistant_thread_started', 'app_home_opened', 'message'] as const) {
    app.event(type, async ({ event }) => {
      events.push(event as unknown as Record<string, unknown>);
    });
  }
  await app.start();
});

afterEach(async () => {
  events.length = 0;
  await cleanUp(
    () => app.stop(),
    () => slack.close(),
  );
});

describe('assistant threads in the Slack stand-in', () => {
  it('starts a thread in the user’s DM and keeps the prompts and title the app sets', async () => {
    const thread = await slack.startAssistantThread({ user: USER, contextChannel: 'C0GENERAL' });
    const started = await slack.waitFor(() => events.find((event) => event.type === 'assistant_thread_started'));
    expect(started.assistant_thread).toMatchObject({
      user_id: USER,
      channel_id: thread.channel,
      thread_ts: thread.threadTs,
      context: { channel_id: 'C0GENERAL' },
    });
    const prompts = [{ title: 'Churn', message: 'What drives churn?' }];
    await app.client.assistant.threads.setSuggestedPrompts({
      channel_id: thread.channel,
      thread_ts: thread.threadTs,
      title: 'Try',
      prompts,
    });
    await app.client.assistant.threads.setTitle({
      channel_id: thread.channel,
      thread_ts: thread.threadTs,
      title: 'Churn',
    });
    expect(slack.assistantThread(thread.channel, thread.threadTs)).toMatchObject({
      title: 'Churn',
      prompts,
      promptsTitle: 'Try',
    });
  });

  it('refuses more than four prompts, prompts without a message, and unknown threads', async () => {
    const thread = await slack.startAssistantThread({ user: USER });
    const prompt = { title: 'Q', message: 'Question?' };
    const set = (prompts: Array<{ title: string; message: string }>, threadTs = thread.threadTs) =>
      errorOf(
        app.client.assistant.threads.setSuggestedPrompts({ channel_id: thread.channel, thread_ts: threadTs, prompts }),
      );
    expect(await set([prompt, prompt, prompt, prompt, prompt])).toBe('invalid_arguments');
    expect(await set([{ title: 'Q', message: '' }])).toBe('invalid_arguments');
    expect(await set([prompt], '1.000001')).toBe('invalid_thread_ts');
    expect(await set([prompt, prompt, prompt, prompt])).toBe('ok');
    expect(
      await errorOf(
        app.client.assistant.threads.setTitle({ channel_id: 'C404', thread_ts: thread.threadTs, title: 'x' }),
      ),
    ).toBe('channel_not_found');
  });
});

describe('Home tabs in the Slack stand-in', () => {
  it('sends app_home_opened with the last published view, one view per user', async () => {
    await slack.openAppHome({ user: USER });
    const first = await slack.waitFor(() => events.find((event) => event.type === 'app_home_opened'));
    expect(first).toMatchObject({ user: USER, tab: 'home', channel: slack.imChannel(USER) });
    expect(first.view).toBeUndefined();
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'hello' } }];
    const published = await app.client.views.publish({ user_id: USER, view: { type: 'home', blocks } });
    await app.client.views.publish({ user_id: USER, view: { type: 'home', blocks: [...blocks, ...blocks] } });
    expect(slack.homeView(USER)?.id).toBe(published.view?.id);
    expect(slack.homeView(USER)?.view.blocks).toHaveLength(2);
    events.length = 0;
    await slack.openAppHome({ user: USER });
    const second = await slack.waitFor(() => events.find((event) => event.type === 'app_home_opened'));
    expect((second.view as { blocks: unknown[] }).blocks).toHaveLength(2);
  });

  it("refuses modals, views without a user, and views beyond Block Kit's limits", async () => {
    const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
    const publish = (view: Record<string, unknown>, user = USER) =>
      errorOf(app.client.views.publish({ user_id: user, view: view as never }));
    expect(await publish({ type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [] })).toBe(
      'invalid_arguments',
    );
    expect(await publish({ type: 'home', blocks: [] }, 'C0GENERAL')).toBe('invalid_arguments');
    expect(await publish({ type: 'home', blocks: Array.from({ length: 101 }, () => section('x')) })).toBe(
      'invalid_blocks',
    );
    expect(await publish({ type: 'home', blocks: [section('x'.repeat(3001))] })).toBe('invalid_blocks');
  });
});

describe('edits in the Slack stand-in', () => {
  it('sends message_changed with the new message and the previous one', async () => {
    const ts = await slack.reply({
      user: USER,
      channel: 'C0GENERAL',
      threadTs: '1700000000.000100',
      text: 'by region',
    });
    await slack.editMessage({ user: USER, channel: 'C0GENERAL', ts, text: 'by contract' });
    const changed = await slack.waitFor(() => events.find((event) => event.subtype === 'message_changed'));
    expect(changed).toMatchObject({
      type: 'message',
      hidden: true,
      channel: 'C0GENERAL',
      message: {
        type: 'message',
        user: USER,
        text: 'by contract',
        ts,
        thread_ts: '1700000000.000100',
        edited: { user: USER },
      },
      previous_message: { text: 'by region', ts },
    });
    expect(slack.messages('C0GENERAL').find((message) => message.ts === ts)?.text).toBe('by contract');
    await expect(slack.editMessage({ user: 'U2BOB', channel: 'C0GENERAL', ts, text: 'mine now' })).rejects.toThrow(
      /did not write/,
    );
  });
});
