/**
 * A file on this machine shared in a thread as Slack and Discord hand over a file a person attached: name, size and
 * a download, read when the thread takes it. The console's `share PATH`, `tally ask --file` and the eval's cases
 * share files this way. `~/` is the home folder.
 */
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import type { SharedFile } from '../ports/chat.js';

const MIME: Record<string, string> = {
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.xls': 'application/vnd.ms-excel',
  '.json': 'application/json',
  '.jsonl': 'application/x-ndjson',
  '.ndjson': 'application/x-ndjson',
};

export interface LocalFileOptions {
  /** The name the thread sees. Default: the file's own. */
  name?: string;
  /** What `~` means. Default: the home folder. */
  home?: string;
}

/** The file at `path`; rejects with a short reason a person can act on when there is none to share. */
export async function localSharedFile(path: string, options: LocalFileOptions = {}): Promise<SharedFile> {
  const home = options.home ?? homedir();
  const full = resolve(path === '~' || path.startsWith('~/') ? join(home, path.slice(1)) : path);
  const info = await stat(full).catch((error: NodeJS.ErrnoException) => {
    throw new Error(error.code === 'ENOENT' ? `there is no file at ${full}` : `cannot read ${full} (${error.code})`);
  });
  if (!info.isFile()) throw new Error(`${full} is not a file`);
  return {
    name: options.name || basename(full),
    mime: MIME[extname(full).toLowerCase()] ?? 'application/octet-stream',
    sizeBytes: info.size,
    download: () => readFile(full),
  };
}
