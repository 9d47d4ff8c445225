/** Slack threads as tally thread keys: `slack:<team>:<channel>:<thread ts>`, and where a message was sent. */
import type { Place, ThreadKey } from '../../src/ports/chat.js';

export interface SlackThread {
  team: string;
  channel: string;
  threadTs: string;
}

export const slackThreadKey = (thread: SlackThread): ThreadKey =>
  `slack:${thread.team}:${thread.channel}:${thread.threadTs}`;

export function parseSlackThreadKey(key: ThreadKey): SlackThread {
  const match = /^slack:([^:]+):([^:]+):(\d+\.\d+)$/.exec(key);
  if (!match?.[1] || !match[2] || !match[3]) throw new Error(`not a Slack thread key: ${key}`);
  return { team: match[1], channel: match[2], threadTs: match[3] };
}

/** Where a message in `channel` was sent: a DM when Slack says `im`, or by its id (DM channel ids start with `D`). */
export function slackPlace(channel: string, channelType?: string): Place {
  return { channel, dm: channelType === 'im' || channel.startsWith('D') };
}
