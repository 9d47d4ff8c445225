/**
 * Which playbook a turn follows: the best-ranked of those the sender may be offered (a playbook derived from a
 * thread only to people holding all that thread read, which catches what a table name cannot: printed rows) and may
 * read the tables of; and its text for the prompt, withheld again should the sender no longer hold its grants.
 */
import type { Logger } from '../base/logger.js';
import type { Reader } from '../ports/access.js';
import type { Database } from '../ports/database.js';
import type { LlmClient } from '../ports/llm.js';
import type { Conversation } from './conversation.js';
import { offeredTo } from './derived-access.js';
import type { Offer } from './derived-offer.js';
import { rankPlaybooksFor } from './playbook-ranking.js';
import { formatPlaybookForPrompt, type Playbook } from './playbooks.js';
import { readablePlaybooks } from './readable-playbooks.js';

export interface FollowPlaybookOptions {
  playbooks: readonly Playbook[];
  /** Every configured database, to tell which a playbook's tables belong to. */
  databases: Database[];
  embed?: LlmClient['embed'];
  logger: Logger;
}

/** What of the turn's request choosing a playbook needs. */
export interface PlaybookRequest {
  databases?: Database[];
  reader?: Reader;
  signal?: AbortSignal;
  onOffered?: (offer: Offer) => Promise<void>;
}

/** The playbook that fits `text`: its prompt text ('' for none) and what to tell the thread. */
export async function followPlaybook(
  text: string,
  conversation: Conversation,
  request: PlaybookRequest,
  options: FollowPlaybookOptions,
): Promise<{ playbook: string; notice?: string }> {
  const offered = options.playbooks.filter((candidate) => offeredTo(candidate.derivedFrom, request.reader));
  const candidates = request.databases
    ? await readablePlaybooks(offered, options.databases, request.databases)
    : offered;
  const [followed] = await rankPlaybooksFor(candidates, text, {
    ...(options.embed ? { embed: options.embed } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
    logger: options.logger,
  });
  if (!followed) {
    delete conversation.playbook;
    return { playbook: '' };
  }
  const { title, file, derivedFrom } = followed.playbook;
  conversation.playbook = file;
  await request.onOffered?.({ kind: 'playbook', name: title, source: file, ...(derivedFrom ? { derivedFrom } : {}) });
  return {
    playbook: playbookText(options.playbooks, file, request.reader),
    notice: `Following playbook: ${title} (${file})`,
  };
}

/** The playbook a turn follows, as prompt text ('' for none, or when `reader` may no longer be offered it). */
export function playbookText(
  playbooks: readonly Playbook[],
  file: string | undefined,
  reader: Reader | undefined,
): string {
  const found = file === undefined ? undefined : playbooks.find((candidate) => candidate.file === file);
  return found && offeredTo(found.derivedFrom, reader) ? formatPlaybookForPrompt(found) : '';
}
