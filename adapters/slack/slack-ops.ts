/**
 * Carries out one rendered Slack operation in a thread (`slack-render.ts` makes them): a message, a message only
 * one person sees, or a file upload. Returns the posted message's ts where Slack gives one.
 */
import type { webApi } from '@slack/bolt';
import type { SlackOp } from './slack-render.js';
import type { SlackThread } from './slack-thread-key.js';

export async function carryOutSlackOp(
  client: webApi.WebClient,
  thread: SlackThread,
  op: Exclude<SlackOp, { kind: 'status' }>,
): Promise<string | undefined> {
  if (op.kind === 'message') {
    const result = await client.chat.postMessage({
      channel: thread.channel,
      thread_ts: thread.threadTs,
      text: op.text,
      ...(op.blocks ? { blocks: op.blocks as never } : {}),
    });
    return result.ts;
  }
  if (op.kind === 'ephemeral') {
    await client.chat.postEphemeral({
      channel: thread.channel,
      user: op.user,
      thread_ts: thread.threadTs,
      text: op.text,
    });
    return undefined;
  }
  await client.filesUploadV2({
    channel_id: thread.channel,
    thread_ts: thread.threadTs,
    file: op.content,
    filename: op.filename,
    title: op.title,
    ...(op.altText ? { alt_text: op.altText.slice(0, 1000) } : {}),
  });
  return undefined;
}
