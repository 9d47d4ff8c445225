/**
 * Slack's AI-app surfaces (the split view and the app's DMs, `assistant_view`): when a person opens
 * an assistant thread (`assistant_thread_started`), tally greets them in it and sets up to four
 * suggested prompts built from the configured databases and playbooks; the thread's first message
 * names it (`assistant.threads.setTitle`). Messages in these threads are ordinary `im` messages
 * with a `thread_ts`, which the message listener already turns into thread messages.
 *
 * Plain `app.event` listeners rather than Bolt's `Assistant` class: the class takes every `im`
 * thread message away from the other listeners (one path for DMs is simpler), and its default
 * context store reads the thread back with `conversations.replies` (1 request a minute for
 * commercially distributed apps) and writes it with `chat.update`, for a context tally does not use.
 */
import type { App } from '@slack/bolt';
import type { TallyDirectory, Viewer } from '../../src/ports/chat.js';
import type { SlackListenerContext } from './slack-listener-context.js';
import { slackThreadKey } from './slack-thread-key.js';
import { slackViewer } from './slack-viewer.js';

/** Slack shows at most four suggested prompts. */
export const MAX_PROMPTS = 4;
const TITLE_CHARS = 60;
const PROMPT_TITLE_CHARS = 75;

export const GREETING =
  "Hi, I'm tally. Ask me a question about your data: I work in this thread, show the code and SQL behind each answer, and build a report you review section by section. Pick a suggestion below or ask your own.";

/** A thread title from a request: its first line, cut at a word boundary. */
export function threadTitle(request: string): string {
  const line =
    request
      .replace(/<@[UW][A-Z0-9]+>/g, '')
      .split('\n')
      .find((part) => part.trim() !== '') ?? '';
  const flat = line.replace(/\s+/g, ' ').trim();
  if (flat.length <= TITLE_CHARS) return flat || 'New analysis';
  const cut = flat.slice(0, TITLE_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/** The starter prompts Slack can show `viewer`: at most four, titles kept short. */
export function suggestedPrompts(
  directory: TallyDirectory | undefined,
  viewer: Viewer,
): Array<{ title: string; message: string }> {
  return (directory?.starterPrompts(viewer) ?? [])
    .filter((prompt) => prompt.message.trim() !== '')
    .slice(0, MAX_PROMPTS)
    .map((prompt) => ({
      title:
        prompt.title.length <= PROMPT_TITLE_CHARS ? prompt.title : `${prompt.title.slice(0, PROMPT_TITLE_CHARS - 1)}…`,
      message: prompt.message,
    }));
}

/** What assistant threads use of the listeners' context (`say` posts through the adapter's queue). */
export type AssistantContext = Pick<
  SlackListenerContext,
  'app' | 'directory' | 'groupsOf' | 'allowed' | 'refuse' | 'say' | 'logError'
>;

export function registerAssistant(context: AssistantContext): void {
  context.app.event('assistant_thread_started', async ({ event, client, context: bolt }) => {
    const { user_id: user, channel_id: channel, thread_ts: threadTs } = event.assistant_thread;
    if (!context.allowed(channel, user)) {
      await context.refuse(channel, user, threadTs);
      return;
    }
    try {
      await context.say(slackThreadKey({ team: bolt.teamId ?? '', channel, threadTs }), GREETING);
      // The assistant pane is a DM with tally: the prompts name what the person may read there.
      const viewer = await slackViewer({ team: bolt.teamId ?? '', channel, dm: true, userId: user }, context.groupsOf);
      const prompts = suggestedPrompts(context.directory, viewer);
      if (prompts.length > 0) {
        await client.assistant.threads.setSuggestedPrompts({
          channel_id: channel,
          thread_ts: threadTs,
          title: 'Try one of these',
          prompts,
        });
      }
    } catch (error) {
      context.logError(error, 'could not greet in a new assistant thread');
    }
  });
}

/** Names an assistant thread after its first request; a failure only costs the title. */
export async function titleAssistantThread(
  app: App,
  thread: { channel: string; threadTs: string },
  request: string,
  logError: AssistantContext['logError'],
): Promise<void> {
  await app.client.assistant.threads
    .setTitle({ channel_id: thread.channel, thread_ts: thread.threadTs, title: threadTitle(request) })
    .catch((error: unknown) => logError(error, 'could not title an assistant thread'));
}
