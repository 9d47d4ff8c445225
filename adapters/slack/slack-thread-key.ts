/** Slack threads as tally thread keys: `slack:<team>:<channel>:<thread ts>`. */
import type { ThreadKey } from '../../src/ports/chat.js';

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
