/**
 * The files shared with a message, as a step of its turn: received into the kernel (the person is told what was
 * not taken), profiled for the prompts, and noted in the request. A message of files alone is acknowledged, and
 * its turn ends there.
 */
import type { Conversation } from '../agent/conversation.js';
import type { Post, SharedFile } from '../ports/chat.js';
import { profileSharedFile } from './profile-shared-file.js';
import { type ReceiveFilesOptions, receiveFiles } from './shared-files.js';

export interface TakeSharedFilesOptions extends ReceiveFilesOptions {
  /** Where the profiles are kept and, for files alone, the note of them. */
  conversation: Conversation;
  emit: (post: Post) => Promise<void>;
  /** Profile the files in the kernel, to list them in the prompts. */
  profileFiles: boolean;
}

/** The request's text with a note of the files delivered; undefined when the turn has nothing more to do. */
export async function takeSharedFiles(
  files: SharedFile[],
  text: string,
  { conversation, emit, profileFiles, ...receiveOptions }: TakeSharedFilesOptions,
): Promise<string | undefined> {
  const received = await receiveFiles(files, receiveOptions);
  for (const line of received.refused) await emit({ kind: 'error', text: `Not taken: ${line}` });
  for (const file of profileFiles ? received.files : []) {
    const profile = await profileSharedFile(await receiveOptions.kernel(), file);
    conversation.files = [...(conversation.files ?? []).filter((known) => known.path !== profile.path), profile];
  }
  let request = text;
  if (received.delivered.length > 0) {
    const note = `[Shared files, readable in the kernel: ${received.delivered.join(', ')}]`;
    if (request.trim() === '') {
      conversation.messages.push({ role: 'user', content: note });
      await emit({ kind: 'text', markdown: `Got it: ${received.delivered.join(', ')}. Ask me about it.` });
      return undefined;
    }
    request = `${request}\n\n${note}`;
  }
  return request.trim() === '' ? undefined : request;
}
