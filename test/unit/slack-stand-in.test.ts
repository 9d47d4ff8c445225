/**
 * The Slack stand-in against the unmodified Bolt App: Socket Mode (events, interactivity, files,
 * faults, reconnects) and the signed HTTP lane.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type AppOptions, type BlockButtonAction, LogLevel, SocketModeReceiver } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanUp } from '../support/clean-up.js';
import { appMentionEvent, blockActionsPayload, eventCallback, urlVerification } from '../support/slack/events.js';
import { interactivityForm, signedRequest } from '../support/slack/http-lane.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';

const CHANNEL = 'C0GENERAL';
const SIGNING_SECRET = 'stand-in-signing-secret';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
const CHART = { file: PNG, filename: 'chart.png', title: 'Rows per month', alt_text: 'Bar chart of rows per month' };

let slack: SlackStandIn;
const apps: App[] = [];

beforeEach(async () => {
  slack = await startSlackStandIn();
});

afterEach(async () => {
  await cleanUp(...apps.splice(0).map((app) => () => app.stop()), () => slack.close());
});

function clientOptions(retries = 0) {
  return { slackApiUrl: slack.apiUrl, retryConfig: { retries, minTimeout: 10 } };
}

/** Starts a Bolt App against the stand-in (Socket Mode unless `options` say otherwise); stopped after each test. */
async function startApp(register: (app: App) => void, options: AppOptions = {}): Promise<{ app: App; port: number }> {
  const app = new App({
    token: slack.botToken,
    logLevel: LogLevel.ERROR,
    clientOptions: clientOptions(),
    ...(options.signingSecret || options.receiver ? {} : { appToken: slack.appToken, socketMode: true }),
    ...options,
  });
  register(app);
  apps.push(app);
  const server = (await app.start(0)) as Server | undefined;
  return { app, port: (server?.address?.() as AddressInfo | undefined)?.port ?? 0 };
}

/** The Slack error code a Web API call rejected with, or `ok`. */
const errorOf = (call: Promise<unknown>) =>
  call.then(
    () => 'ok',
    (error: { data?: { error?: string } }) => error.data?.error,
  );

/** The bot answers every mention in its thread. */
function echoMentions(app: App): void {
  app.event('app_mention', async ({ event, client }) => {
    await client.chat.postMessage({ channel: event.channel, thread_ts: event.thread_ts ?? event.ts, text: 'on it' });
  });
}

describe('Slack stand-in over Socket Mode', () => {
  it('verifies the token, connects, and takes a threaded reply to a mention', async () => {
    await startApp(echoMentions);
    await slack.connected();
    expect(slack.callsTo('auth.test')).toMatchObject([{ token: slack.botToken, outcome: 'ok' }]);
    expect(slack.callsTo('apps.connections.open')).toMatchObject([{ token: slack.appToken, outcome: 'ok' }]);

    const ts = await slack.mention({ user: 'U1', channel: CHANNEL, text: 'how many rows?' });

    const reply = await slack.waitFor(() => slack.thread(CHANNEL, ts).replies[0]);
    expect(reply).toMatchObject({ user: 'UBOT', bot_id: 'BBOT', thread_ts: ts, text: 'on it' });
    expect(slack.thread(CHANNEL, ts).parent).toMatchObject({ user: 'U1', text: '<@UBOT> how many rows?' });
    const args = slack.callsTo('chat.postMessage')[0]?.args;
    expect(args).toMatchObject({ channel: CHANNEL, thread_ts: ts, team_id: 'T0TALLY' });
    const sent = slack.envelopes.map((envelope) => (envelope.payload.event as { type: string }).type);
    expect(sent.slice(0, 2)).toEqual(['app_mention', 'message']);
    const echo = await slack.waitFor(() =>
      slack.envelopes.find((envelope) => (envelope.payload.event as { user?: string }).user === 'UBOT' && envelope.ack),
    );
    expect(echo.payload.event).toMatchObject({ type: 'message', bot_id: 'BBOT', thread_ts: ts });
  });

  it('lands files.uploadV2 in the thread with its bytes, title and alt text', async () => {
    await startApp((app) =>
      app.event('app_mention', async ({ event, client }) => {
        await client.files.uploadV2({ channel_id: event.channel, thread_ts: event.ts, ...CHART });
      }),
    );
    const ts = await slack.mention({ user: 'U1', channel: CHANNEL, text: 'chart it' });

    const message = await slack.waitFor(() => slack.thread(CHANNEL, ts).replies.find((reply) => reply.files));
    const [file] = slack.files();
    expect(file).toMatchObject({ name: 'chart.png', title: 'Rows per month', mimetype: 'image/png' });
    expect(file?.altText).toBe('Bar chart of rows per month');
    expect(file?.bytes?.equals(PNG)).toBe(true);
    expect(message.files?.[0]).toMatchObject({ id: file?.id, alt_txt: 'Bar chart of rows per month' });

    const download = String(message.files?.[0]?.url_private_download);
    const authorized = await fetch(download, { headers: { authorization: `Bearer ${slack.botToken}` } });
    expect(Buffer.from(await authorized.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await fetch(download)).status).toBe(403);
  });

  it('delivers a click to app.action, opens the modal with its trigger, and submits it to app.view', async () => {
    const submitted: Array<{ code: string | null | undefined; metadata: string }> = [];
    const { app } = await startApp((app) => {
      app.event('app_mention', async ({ event, client }) => {
        const button = {
          type: 'button',
          action_id: 'edit_code',
          text: { type: 'plain_text', text: 'Edit' },
          value: 's1',
        } as const;
        await client.chat.postMessage({
          channel: event.channel,
          thread_ts: event.ts,
          text: 'Here is the query',
          blocks: [{ type: 'actions', block_id: 'review', elements: [button] }],
        });
      });
      app.action<BlockButtonAction>('edit_code', async ({ ack, body, action, client }) => {
        await ack();
        await client.views.open({
          trigger_id: body.trigger_id,
          view: {
            type: 'modal',
            callback_id: 'code_edit',
            private_metadata: action.value ?? '',
            title: { type: 'plain_text', text: 'Edit code' },
            submit: { type: 'plain_text', text: 'Run' },
            blocks: [
              {
                type: 'input',
                block_id: 'code',
                label: { type: 'plain_text', text: 'SQL' },
                element: { type: 'plain_text_input', action_id: 'code', multiline: true, initial_value: 'SELECT 1' },
              },
            ],
          },
        });
      });
      app.view('code_edit', async ({ ack, view }) => {
        const code = view.state.values.code?.code?.value;
        if (!code?.startsWith('SELECT'))
          return ack({ response_action: 'errors', errors: { code: 'Only SELECT statements' } });
        submitted.push({ code, metadata: view.private_metadata });
        await ack();
      });
    });
    const ts = await slack.mention({ user: 'U1', channel: CHANNEL, text: 'query it' });
    const botMessage = await slack.waitFor(() => slack.thread(CHANNEL, ts).replies[0]);

    const click = await slack.click({ user: 'U1', channel: CHANNEL, messageTs: botMessage.ts, actionId: 'edit_code' });
    const [view] = await slack.waitFor(() => slack.views().length > 0 && slack.views());
    expect(view).toMatchObject({ user: 'U1', triggerId: click.triggerId, open: true });
    expect(view?.view).toMatchObject({ callback_id: 'code_edit', private_metadata: 's1' });
    const reuse = app.client.views.open({
      token: slack.botToken,
      trigger_id: click.triggerId,
      view: { type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [] },
    });
    await expect(reuse).rejects.toMatchObject({ data: { error: 'exchanged_trigger_id' } });

    const viewId = String(view?.id);
    const rejected = await slack.submitView({ user: 'U1', viewId, values: { code: { code: 'DROP TABLE t' } } });
    expect(rejected).toEqual({ response_action: 'errors', errors: { code: 'Only SELECT statements' } });
    expect(slack.views()[0]?.open).toBe(true);
    const accepted = await slack.submitView({ user: 'U1', viewId, values: { code: { code: 'SELECT 2' } } });
    expect(accepted).toEqual({});
    expect(submitted).toEqual([{ code: 'SELECT 2', metadata: 's1' }]);
    expect(slack.views()[0]?.open).toBe(false);
  });

  it('has the SDK wait out a 429 with Retry-After and post exactly once', async () => {
    slack.failNext('chat.postMessage', { status: 429, retryAfterSeconds: 1 });
    await startApp(echoMentions, { clientOptions: clientOptions(1) });
    const ts = await slack.mention({ user: 'U1', channel: CHANNEL, text: 'busy?' });

    await slack.waitForCall('chat.postMessage');
    const calls = slack.callsTo('chat.postMessage');
    expect(calls.map((call) => call.outcome)).toEqual(['http 429', 'ok']);
    expect((calls[1]?.at ?? 0) - (calls[0]?.at ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(slack.thread(CHANNEL, ts).replies).toHaveLength(1);
  });

  it('answers platform errors the way Slack does', async () => {
    const { app } = await startApp(() => undefined);
    const client = app.client;
    const token = slack.botToken;
    slack.failNext('chat.postMessage', { error: 'internal_error' });
    expect(await errorOf(client.chat.postMessage({ token, channel: CHANNEL, text: 'x' }))).toBe('internal_error');
    expect(await errorOf(client.chat.postMessage({ token, channel: 'C0NOPE', text: 'x' }))).toBe('channel_not_found');
    expect(await errorOf(client.chat.postMessage({ token: 'xoxb-wrong', channel: CHANNEL, text: 'x' }))).toBe(
      'invalid_auth',
    );
    const posted = await client.chat.postMessage({ token, channel: CHANNEL, text: 'vote' });
    const reaction = { token, channel: CHANNEL, timestamp: String(posted.ts), name: 'eyes' };
    expect(await errorOf(client.reactions.add(reaction))).toBe('ok');
    expect(await errorOf(client.reactions.add(reaction))).toBe('already_reacted');
    expect(slack.reactions(CHANNEL, String(posted.ts))).toEqual([{ name: 'eyes', users: ['UBOT'], count: 1 }]);
  });

  it('delivers reaction_added, thread replies, DMs and shared files', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const { app } = await startApp((app) => {
      app.event('reaction_added', async ({ event }) => void seen.push({ ...event }));
      app.message(async ({ message }) => void seen.push({ ...message }));
    });
    const posted = await app.client.chat.postMessage({ token: slack.botToken, channel: CHANNEL, text: 'Accept?' });
    const ts = String(posted.ts);

    await slack.react({ user: 'U1', channel: CHANNEL, ts, reaction: 'white_check_mark' });
    await slack.reply({ user: 'U1', channel: CHANNEL, threadTs: ts, text: 'make it a bar chart' });
    await slack.directMessage({ user: 'U2', text: 'hello' });
    const csv = { name: 'data.csv', content: Buffer.from('a,b\n1,2\n') };
    await slack.shareFile({ user: 'U1', channel: CHANNEL, threadTs: ts, ...csv });
    await slack.waitFor(() => seen.length >= 4);

    // The bot's own post was echoed too, and Bolt's ignoreSelf dropped it: four, not five.
    expect(seen).toHaveLength(4);
    expect(seen).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'reaction_added',
          item: { type: 'message', channel: CHANNEL, ts },
          item_user: 'UBOT',
        }),
        expect.objectContaining({ type: 'message', thread_ts: ts, parent_user_id: 'UBOT', channel_type: 'channel' }),
        expect.objectContaining({ type: 'message', channel: slack.imChannel('U2'), channel_type: 'im', text: 'hello' }),
        expect.objectContaining({
          subtype: 'file_share',
          thread_ts: ts,
          files: [expect.objectContaining({ name: 'data.csv', mimetype: 'text/csv', size: 8 })],
        }),
      ]),
    );
    expect(slack.reactions(CHANNEL, ts)).toEqual([{ name: 'white_check_mark', users: ['U1'], count: 1 }]);
  });

  it('reconnects after a disconnect request', async () => {
    const receiver = new SocketModeReceiver({
      appToken: slack.appToken,
      clientPingTimeout: 300,
      logLevel: LogLevel.ERROR,
      installerOptions: { clientOptions: clientOptions() },
    });
    await startApp(echoMentions, { receiver });

    await slack.disconnect();
    await slack.connected();
    const ts = await slack.mention({ user: 'U1', channel: CHANNEL, text: 'still there?' });

    await slack.waitFor(() => slack.thread(CHANNEL, ts).replies[0]);
    expect(slack.callsTo('apps.connections.open')).toHaveLength(2);
  });
});

describe('Slack stand-in HTTP lane', () => {
  it('accepts signed events and interactivity, answers url_verification, and rejects bad signatures', async () => {
    const clicks: string[] = [];
    const register = (app: App) => {
      echoMentions(app);
      app.action('accept', async ({ ack, action }) => {
        clicks.push((action as { value: string }).value);
        await ack();
      });
    };
    const { port } = await startApp(register, { signingSecret: SIGNING_SECRET });
    const endpoint = `http://127.0.0.1:${port}/slack/events`;
    const options = { signingSecret: SIGNING_SECRET };
    const ts = '1700000000.000100';
    const mention = { type: 'message' as const, channel: CHANNEL, ts, text: '<@UBOT> hi', user: 'U1' };
    const event = eventCallback(slack.ids, appMentionEvent(mention, slack.ids.teamId));

    const challenge = await signedRequest(endpoint, urlVerification('c-123'), options);
    expect(await challenge.json()).toEqual({ challenge: 'c-123' });
    expect((await signedRequest(endpoint, event, options)).status).toBe(200);
    await slack.waitForCall('chat.postMessage', (call) => call.args.thread_ts === ts);

    const click = blockActionsPayload(slack.ids, {
      user: 'U1',
      channel: { id: CHANNEL, name: 'general' },
      message: { ts, text: 'Accept?' },
      action: { actionId: 'accept', blockId: 'b1', type: 'button', value: 's1' },
      triggerId: 't-1',
      responseUrl: `${slack.url}/respond/none`,
    });
    expect((await signedRequest(endpoint, interactivityForm(click), options)).status).toBe(200);
    expect(clicks).toEqual(['s1']);

    expect((await signedRequest(endpoint, event, { ...options, signature: 'v0=deadbeef' })).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 10 * 60;
    expect((await signedRequest(endpoint, event, { ...options, timestamp: stale })).status).toBe(401);
  });
});
