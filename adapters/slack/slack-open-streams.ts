/**
 * The streamed message a Slack turn has open, on record while it streams (adapters/common/open-posts.ts): the
 * thread's next turn stops one a dead process left streaming, with LEFT_OPEN_TEXT.
 */
import type { Logger } from '../../src/base/logger.js';
import { OpenPosts } from '../common/open-posts.js';
import type { PostMemory } from '../common/remembered-posts.js';

/** What the stream a dead process left open says when it is stopped. */
export const LEFT_OPEN_TEXT = '_tally restarted while working on this; it went on below._';

export interface OpenStream {
  channel: string;
  ts: string;
}

export function openStreams(memory: PostMemory | undefined, logger: Logger): OpenPosts<OpenStream> {
  return new OpenPosts<OpenStream>(memory, logger);
}
