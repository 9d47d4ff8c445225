/**
 * People using the app's own surfaces, and editing what they wrote: opening an assistant thread
 * (the split view or the app's DM: a root message of subtype `assistant_app_thread` and an
 * `assistant_thread_started` event), opening the App Home (`app_home_opened`, with the Home tab's
 * last published view), and editing a message (`message` of subtype `message_changed`, with the
 * new `message` and the `previous_message`). Each resolves once the app acked the event.
 */
import { eventCallback } from './events.js';
import { wireMessage } from './method-handler.js';
import type { Json } from './slack-state.js';
import { richText, type UserActionContext } from './user-actions.js';

function sendEvent(context: UserActionContext, event: Json): Promise<Json> {
  return context.socket.deliver('events_api', eventCallback(context.state.ids, event), false);
}

/** The user opens a new assistant thread; `contextChannel` is the channel they are looking at. */
export async function startAssistantThread(
  context: UserActionContext,
  input: { user: string; contextChannel?: string },
): Promise<{ channel: string; threadTs: string }> {
  const { state } = context;
  const channel = state.imChannel(input.user);
  const root = state.addMessage({
    type: 'message',
    subtype: 'assistant_app_thread',
    channel: channel.id,
    ts: state.nextTs(),
    text: 'New chat',
    user: input.user,
    team: state.ids.teamId,
    assistant_app_thread: { title: '', title_blocks: [], artifacts: [] },
  });
  await sendEvent(context, {
    type: 'assistant_thread_started',
    assistant_thread: {
      user_id: input.user,
      context: {
        ...(input.contextChannel === undefined ? {} : { channel_id: input.contextChannel }),
        team_id: state.ids.teamId,
        enterprise_id: null,
      },
      channel_id: channel.id,
      thread_ts: root.ts,
    },
    event_ts: state.nextTs(),
  });
  return { channel: channel.id, threadTs: root.ts };
}

/** The user opens the app's Home tab (or its Messages tab). */
export async function openAppHome(
  context: UserActionContext,
  input: { user: string; tab?: 'home' | 'messages' },
): Promise<void> {
  const { state } = context;
  const published = state.homeViews.get(input.user);
  await sendEvent(context, {
    type: 'app_home_opened',
    user: input.user,
    channel: state.imChannel(input.user).id,
    tab: input.tab ?? 'home',
    event_ts: state.nextTs(),
    ...(published && (input.tab ?? 'home') === 'home' ? { view: published.view } : {}),
  });
}

/** The author edits their message; Slack only lets people edit their own. */
export async function editUserMessage(
  context: UserActionContext,
  input: { user: string; channel: string; ts: string; text: string },
): Promise<void> {
  const { state } = context;
  const message = state.findMessage(input.channel, input.ts);
  if (!message) throw new Error(`Slack stand-in: edit: no message ${input.ts} in channel ${input.channel}`);
  if (message.user !== input.user) throw new Error(`Slack stand-in: edit: ${input.user} did not write ${input.ts}`);
  const previous = wireMessage({ ...message });
  const editTs = state.nextTs();
  message.text = input.text;
  message.blocks = richText(input.text);
  message.edited = { user: input.user, ts: editTs };
  state.changed();
  await sendEvent(context, {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel: message.channel,
    channel_type: state.channelType(message.channel),
    message: wireMessage(message),
    previous_message: previous,
    ts: editTs,
    event_ts: editTs,
  });
}
