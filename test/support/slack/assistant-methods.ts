/**
 * `assistant.threads.setSuggestedPrompts` and `assistant.threads.setTitle`: what the app shows in an
 * assistant thread, recorded per thread. As Slack: `channel_id` must name a conversation
 * (`channel_not_found`), a given `thread_ts` must name a message there (`invalid_thread_ts`), and
 * prompts are a JSON array of one to four `{title, message}` (`invalid_arguments` otherwise).
 */
import { arrayArg, failure, type MethodHandler, ok, resolveChannel, stringArg } from './method-handler.js';
import type { Json, SlackAssistantThread, SlackState } from './slack-state.js';

/** Slack shows at most four suggested prompts. */
export const MAX_SUGGESTED_PROMPTS = 4;

function thread(state: SlackState, channel: string, threadTs: string): SlackAssistantThread {
  const key = `${channel}:${threadTs}`;
  const existing = state.assistantThreads.get(key);
  if (existing) return existing;
  const created: SlackAssistantThread = { channel, threadTs };
  state.assistantThreads.set(key, created);
  return created;
}

function isPrompt(value: unknown): value is { title: string; message: string } {
  const prompt = value as Json | null;
  return (
    typeof prompt === 'object' &&
    prompt !== null &&
    typeof prompt.title === 'string' &&
    prompt.title !== '' &&
    typeof prompt.message === 'string' &&
    prompt.message !== ''
  );
}

const setSuggestedPrompts: MethodHandler = (args, { state }) => {
  const channel = resolveChannel(state, stringArg(args, 'channel_id'));
  if (!channel) return failure('channel_not_found');
  const prompts = arrayArg(args, 'prompts');
  if (!prompts || prompts.length === 0 || prompts.length > MAX_SUGGESTED_PROMPTS || !prompts.every(isPrompt)) {
    return failure('invalid_arguments');
  }
  const threadTs = stringArg(args, 'thread_ts');
  // Without thread_ts Slack sets them on the channel's latest message (the agent view); kept under ''.
  if (threadTs !== undefined && !state.findMessage(channel.id, threadTs)) return failure('invalid_thread_ts');
  const target = thread(state, channel.id, threadTs ?? '');
  target.prompts = prompts.map(({ title, message }) => ({ title, message }));
  const title = stringArg(args, 'title');
  if (title === undefined) delete target.promptsTitle;
  else target.promptsTitle = title;
  state.changed();
  return ok();
};

const setTitle: MethodHandler = (args, { state }) => {
  const channel = resolveChannel(state, stringArg(args, 'channel_id'));
  if (!channel) return failure('channel_not_found');
  const threadTs = stringArg(args, 'thread_ts');
  const title = stringArg(args, 'title');
  if (threadTs === undefined || title === undefined) return failure('invalid_arguments');
  if (!state.findMessage(channel.id, threadTs)) return failure('invalid_thread_ts');
  thread(state, channel.id, threadTs).title = title;
  state.changed();
  return ok();
};

export const assistantMethods: Record<string, MethodHandler> = {
  'assistant.threads.setSuggestedPrompts': setSuggestedPrompts,
  'assistant.threads.setTitle': setTitle,
};
