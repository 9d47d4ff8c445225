/**
 * A person's edit of their message, from Slack's `message_changed` event: which message (its `ts`,
 * the id tally keeps as `Inbound.messageId`), in which thread, and what it says now. Edits Slack
 * makes itself (a bot's update, an assistant thread's title, an unfurl that leaves the text as it
 * was) are not edits by a person and give nothing. Pure: the listener decides whether tally is in
 * the thread.
 */

/** The fields of a `message_changed` event tally reads. */
export interface MessageChangedEvent {
  subtype?: string;
  channel: string;
  channel_type?: string;
  message?: {
    user?: string;
    bot_id?: string;
    subtype?: string;
    text?: string;
    ts?: string;
    thread_ts?: string;
  };
  previous_message?: { text?: string };
}

export interface SlackEdit {
  channel: string;
  /** The thread the message is in: its parent's ts, or its own for a thread's first message. */
  threadTs: string;
  user: string;
  /** The edited message's ts. */
  messageId: string;
  /** What it says now, as Slack has it (mentions not yet stripped). */
  text: string;
}

export function parseEdit(event: MessageChangedEvent, botUserId: string): SlackEdit | undefined {
  const message = event.message;
  if (event.subtype !== 'message_changed' || !message?.ts || !message.user) return undefined;
  if (message.bot_id || message.user === botUserId) return undefined;
  // `assistant_app_thread` roots are retitled by Slack; file shares and the like keep their subtype.
  if (message.subtype !== undefined && message.subtype !== 'file_share') return undefined;
  const text = message.text ?? '';
  if (event.previous_message?.text === text) return undefined;
  return {
    channel: event.channel,
    threadTs: message.thread_ts ?? message.ts,
    user: message.user,
    messageId: message.ts,
    text,
  };
}
