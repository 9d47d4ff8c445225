/**
 * Files people share in a thread: data files (CSV, TSV, Excel, JSON) within the size limit are
 * delivered read-only into the session's kernel at `/inputs/uploads/<name>` and kept in the store, so
 * a new kernel gets them back; anything else is refused with the reason. Returns the notes the
 * agent reads about them.
 */

import type { KernelJournalEntry } from '../agent/tool.js';
import type { AuditTrail } from '../ports/audit.js';
import type { SharedFile } from '../ports/chat.js';
import type { Kernel } from '../ports/sandbox.js';
import type { Store } from '../ports/store.js';
import { sharedFileKey, uploadKey } from './session-record.js';

const KINDS: Record<string, string> = {
  '.csv': 'CSV',
  '.tsv': 'TSV',
  '.xlsx': 'Excel',
  '.xls': 'Excel',
  '.json': 'JSON',
  '.jsonl': 'JSON lines',
  '.ndjson': 'JSON lines',
};

export interface ReceiveFilesOptions {
  threadKey: string;
  maxBytes: number;
  kernel: () => Promise<Kernel>;
  store: Store;
  record: (entry: KernelJournalEntry) => Promise<void>;
  /** Every file taken or refused is recorded. */
  audit: Pick<AuditTrail, 'record'>;
}

export interface ReceivedFiles {
  /** One line per delivered file, for the agent: where it is and what it is. */
  delivered: string[];
  /** One line per refused file, for the person. */
  refused: string[];
  /** The delivered files, where the kernel reads them and their kind (to profile them). */
  files: Array<{ path: string; kind: string }>;
}

/** How long a received file waits in the store for its message's turn. */
const WAITING_MS = 24 * 60 * 60_000;

/**
 * Keeps the files shared with a message in the store as it arrives, those the turn will take (a known kind,
 * within the size limit), so that any replica can run the message. A download that fails now is left to the
 * turn, which then says so honestly.
 */
export async function keepSharedFiles(
  files: SharedFile[],
  options: { threadKey: string; messageId: string; maxBytes: number; store: Store },
): Promise<void> {
  for (const file of files) {
    const kind = KINDS[/\.[^.]+$/.exec(safeName(file.name))?.[0]?.toLowerCase() ?? ''];
    if (!kind || file.sizeBytes > options.maxBytes) continue;
    const content = await file.download().catch(() => undefined);
    if (!content || content.byteLength > options.maxBytes) continue;
    await options.store.set(
      sharedFileKey(options.threadKey, options.messageId, file.name),
      content.toString('base64'),
      WAITING_MS,
    );
  }
}

/** A file kept by `keepSharedFiles`, fetched from the store by the replica that runs the message. */
export function keptSharedFile(
  file: Omit<SharedFile, 'download'>,
  options: { threadKey: string; messageId: string; store: Store },
): SharedFile {
  return {
    ...file,
    download: async () => {
      const kept = await options.store.get<string>(sharedFileKey(options.threadKey, options.messageId, file.name));
      if (kept === undefined) {
        throw new Error(`${file.name} was shared before tally restarted and cannot be fetched again`);
      }
      return Buffer.from(kept, 'base64');
    },
  };
}

export async function receiveFiles(files: SharedFile[], options: ReceiveFilesOptions): Promise<ReceivedFiles> {
  const delivered: string[] = [];
  const refused: string[] = [];
  const received: ReceivedFiles['files'] = [];
  for (const file of files) {
    const name = safeName(file.name);
    const extension = /\.[^.]+$/.exec(name)?.[0]?.toLowerCase() ?? '';
    const kind = KINDS[extension];
    const refuse = async (line: string, reason: string, bytes: number) => {
      refused.push(line);
      await options.audit.record({ kind: 'shared-file', decision: 'refused', reason, file: name, bytes });
    };
    if (!kind) {
      await refuse(
        `${file.name}: I only take CSV, TSV, Excel, JSON and JSON lines files.`,
        'file type',
        file.sizeBytes,
      );
      continue;
    }
    if (file.sizeBytes > options.maxBytes) {
      const line = `${file.name}: ${megabytes(file.sizeBytes)} is over the ${megabytes(options.maxBytes)} limit.`;
      await refuse(line, 'file size', file.sizeBytes);
      continue;
    }
    const content = await file.download();
    if (content.byteLength > options.maxBytes) {
      const line = `${file.name}: ${megabytes(content.byteLength)} is over the ${megabytes(options.maxBytes)} limit.`;
      await refuse(line, 'file size', content.byteLength);
      continue;
    }
    const path = `uploads/${name}`;
    const key = uploadKey(options.threadKey, name);
    await options.store.set(key, content.toString('base64'));
    await (await options.kernel()).writeFile(path, content);
    await options.record({ kind: 'file', path, key });
    await options.audit.record({ kind: 'shared-file', decision: 'allowed', file: name, bytes: content.byteLength });
    delivered.push(`/inputs/${path} (${kind}, ${megabytes(content.byteLength)})`);
    received.push({ path: `/inputs/${path}`, kind });
  }
  return { delivered, refused, files: received };
}

/** A file name without folders or odd characters, so it stays inside /inputs/uploads. */
function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .replace(/[^\w.\- ]+/g, '_')
    .replace(/^\.+/, '')
    .trim();
  return cleaned === '' ? 'upload' : cleaned.slice(0, 120);
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MB`;
