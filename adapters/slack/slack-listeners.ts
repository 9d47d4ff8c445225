/**
 * Slack events into platform-neutral inbound messages: a mention starts (or continues) a thread,
 * replies in threads tally is part of continue it, DMs and assistant threads work too, and a
 * person's edit of a message there arrives as an edit; buttons, reactions on review posts and modal
 * submissions become actions. Assistant threads, App Home and `/tally` register from their own
 * files. Everyone outside the allowed channels and users gets an ephemeral explanation and nothing
 * else happens.
 */
import { ACTION_IDS, type SharedFile } from '../../src/ports/chat.js';
import { registerAssistant, titleAssistantThread } from './slack-assistant.js';
import { registerTallyCommand } from './slack-command.js';
import { type MessageChangedEvent, parseEdit } from './slack-edits.js';
import { registerHomeTab } from './slack-home.js';
import type { SlackListenerContext } from './slack-listener-context.js';
import {
  EDIT_VIEW,
  editModal,
  MODAL_INPUT_CHARS,
  parseModalContext,
  REVISE_VIEW,
  reviseModal,
  submittedText,
} from './slack-modals.js';
import { REACTIONS } from './slack-render.js';
import { parseSlackThreadKey, type SlackThread, slackPlace, slackThreadKey } from './slack-thread-key.js';

interface SlackFile {
  name?: string;
  mimetype?: string;
  size?: number;
  url_private_download?: string;
}

interface MessageEvent {
  subtype?: string;
  bot_id?: string;
  user?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  channel: string;
  channel_type?: string;
  files?: SlackFile[];
}

export function registerSlackListeners(context: SlackListenerContext): void {
  const { app } = context;
  const mentionPattern = () => new RegExp(`<@${context.botUserId()}>`, 'g');
  const strip = (text: string | undefined) => (text ?? '').replace(mentionPattern(), '').trim();

  const files = (shared: SlackFile[] | undefined): SharedFile[] =>
    (shared ?? []).map((file) => ({
      name: file.name ?? 'upload',
      mime: file.mimetype ?? 'application/octet-stream',
      sizeBytes: file.size ?? 0,
      download: async () => {
        if (!file.url_private_download) throw new Error(`Slack gave no download address for ${file.name}`);
        const response = await fetch(file.url_private_download, {
          headers: { Authorization: `Bearer ${context.botToken}` },
        });
        if (!response.ok) throw new Error(`Slack refused the download of ${file.name} (HTTP ${response.status})`);
        return Buffer.from(await response.arrayBuffer());
      },
    }));

  /** Hands a message to tally; false when the person or channel is not allowed. */
  const incoming = async (team: string, event: MessageEvent, threadTs: string): Promise<boolean> => {
    const user = event.user ?? '';
    if (!context.allowed(event.channel, user)) {
      await context.refuse(event.channel, user, threadTs);
      return false;
    }
    const threadKey = slackThreadKey({ team, channel: event.channel, threadTs });
    context.markThread(threadKey);
    await context.acknowledge(event.channel, event.ts);
    const shared = files(event.files);
    context.deliver({
      threadKey,
      user: { id: user },
      text: strip(event.text),
      receivedAt: Date.now(),
      messageId: event.ts,
      place: slackPlace(event.channel, event.channel_type),
      ...(shared.length > 0 ? { files: shared } : {}),
    });
    return true;
  };

  /** A person changed a message in a thread tally is in: the inbox runs the new text or offers a rerun. */
  const edited = async (team: string, event: MessageChangedEvent) => {
    const edit = parseEdit(event, context.botUserId());
    if (!edit || !context.allowed(edit.channel, edit.user)) return;
    const threadKey = slackThreadKey({ team, channel: edit.channel, threadTs: edit.threadTs });
    if (!(await context.isKnownThread(threadKey))) return;
    context.deliver({
      threadKey,
      user: { id: edit.user },
      text: strip(edit.text),
      receivedAt: Date.now(),
      messageId: edit.messageId,
      edited: true,
      place: slackPlace(edit.channel, event.channel_type),
    });
  };

  app.event('app_mention', async ({ event, context: bolt }) => {
    const mention = event as unknown as MessageEvent;
    await incoming(bolt.teamId ?? '', mention, mention.thread_ts ?? mention.ts);
  });

  app.event('message', async ({ event, context: bolt }) => {
    const message = event as unknown as MessageEvent;
    const team = bolt.teamId ?? '';
    if (message.subtype === 'message_changed') {
      await edited(team, event as unknown as MessageChangedEvent);
      return;
    }
    if (message.bot_id || (message.subtype !== undefined && message.subtype !== 'file_share')) return;
    if (mentionPattern().test(message.text ?? '')) return; // the app_mention event carries it
    if (message.channel_type === 'im') {
      // An assistant thread (split view or DM) is a thread tally has not seen until its first message.
      const threadTs = message.thread_ts;
      const first =
        threadTs !== undefined &&
        !(await context.isKnownThread(slackThreadKey({ team, channel: message.channel, threadTs })));
      const delivered = await incoming(team, message, threadTs ?? message.ts);
      if (delivered && first) {
        await titleAssistantThread(app, { channel: message.channel, threadTs }, strip(message.text), context.logError);
      }
      return;
    }
    if (!message.thread_ts) return;
    const threadKey = slackThreadKey({ team, channel: message.channel, threadTs: message.thread_ts });
    if (await context.isKnownThread(threadKey)) await incoming(team, message, message.thread_ts);
  });

  app.event('reaction_added', async ({ event }) => {
    const control = REACTIONS[event.reaction];
    if (!control || event.item.type !== 'message') return;
    const posted = await context.remembered(event.item.channel, event.item.ts);
    if (posted?.kind !== 'review' || !posted.controls.includes(control)) return;
    if (!context.allowed(event.item.channel, event.user)) return;
    context.deliver({
      threadKey: posted.threadKey,
      user: { id: event.user },
      text: '',
      action: { id: ACTION_IDS[control], value: posted.value },
      receivedAt: Date.now(),
      place: slackPlace(event.item.channel),
    });
  });

  app.action(/^(review|approval|question|edit)\./, async ({ ack, body, action, client }) => {
    await ack();
    const click = body as unknown as {
      user: { id: string };
      team?: { id: string } | null;
      trigger_id: string;
      channel?: { id: string };
      message?: { ts: string; thread_ts?: string };
    };
    const { actionId, value } = action as unknown as { actionId?: string; action_id: string; value?: string };
    const id = (action as unknown as { action_id: string }).action_id ?? actionId;
    const channel = click.channel?.id;
    const message = click.message;
    if (!channel || !message) return;
    if (!context.allowed(channel, click.user.id)) {
      await context.refuse(channel, click.user.id, message.thread_ts ?? message.ts);
      return;
    }
    const thread: SlackThread = { team: click.team?.id ?? '', channel, threadTs: message.thread_ts ?? message.ts };
    const threadKey = slackThreadKey(thread);
    const base = { threadKey, user: { id: click.user.id }, receivedAt: Date.now(), place: slackPlace(channel) };
    if (id === ACTION_IDS.revise) {
      await client.views.open({
        trigger_id: click.trigger_id,
        view: reviseModal({ threadKey, value: value ?? '' }) as never,
      });
      return;
    }
    if (id === ACTION_IDS.edit) {
      const posted = await context.remembered(channel, message.ts);
      const code = posted?.kind === 'approval' ? posted.code : '';
      if (code.length > MODAL_INPUT_CHARS) {
        await context.say(
          threadKey,
          `This cell is longer than the ${MODAL_INPUT_CHARS.toLocaleString('en')} characters a Slack form holds: reply in the thread with \`edit\` and a \`\`\`${posted?.kind === 'approval' ? posted.language : 'python'} block with the code to run instead (the full cell is attached above).`,
        );
        return;
      }
      await client.views.open({
        trigger_id: click.trigger_id,
        view: editModal({ threadKey, value: value ?? '' }, code) as never,
      });
      return;
    }
    if (id.startsWith(`${ACTION_IDS.choice}.`)) {
      context.deliver({ ...base, text: value ?? '', action: { id: ACTION_IDS.choice, value: value ?? '' } });
      return;
    }
    context.deliver({ ...base, text: '', action: { id, value: value ?? '' } });
  });

  /** A submitted form: its text becomes the action's text (feedback for Revise, code for Edit). */
  const onSubmit = (callbackId: string, field: string, missing: string, actionId: string) =>
    app.view(callbackId, async ({ ack, view, body }) => {
      const text = submittedText(view.state.values, field, field);
      if (text === '') {
        await ack({ response_action: 'errors', errors: { [field]: missing } });
        return;
      }
      await ack();
      const target = parseModalContext(view.private_metadata);
      if (!target) return;
      context.deliver({
        threadKey: target.threadKey,
        user: { id: body.user.id },
        text,
        action: { id: actionId, value: target.value },
        receivedAt: Date.now(),
        // The form was opened from a button in the thread: the thread's channel is where it was sent.
        place: slackPlace(parseSlackThreadKey(target.threadKey).channel),
      });
    });
  onSubmit(REVISE_VIEW, 'feedback', 'Say what should change.', ACTION_IDS.revise);
  onSubmit(EDIT_VIEW, 'code', 'Give the code to run, or Skip the cell instead.', ACTION_IDS.edit);

  registerAssistant(context);
  registerHomeTab(context);
  registerTallyCommand(context);

  app.error(async (error) => {
    context.logError(error, 'slack listener failed');
  });
}
