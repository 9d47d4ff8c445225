/**
 * Which files a run wrote into its folders: a snapshot of each file's size and modification time
 * before, compared with the folders after. Whoever writes (the console's charts, the report
 * exports) need not report its paths.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export type FileSnapshot = Map<string, string>;

/** Every file under `folders` (recursively), with its size and modification time. */
export async function snapshotFiles(folders: string[]): Promise<FileSnapshot> {
  const snapshot: FileSnapshot = new Map();
  for (const folder of new Set(folders.map((path) => resolve(path)))) {
    const names = await readdir(folder, { recursive: true }).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(folder, name);
      const info = await stat(path).catch(() => undefined);
      if (info?.isFile()) snapshot.set(path, `${info.size}:${info.mtimeMs}`);
    }
  }
  return snapshot;
}

/** Files that are new or changed since `before`, sorted. */
export async function filesWrittenSince(before: FileSnapshot, folders: string[]): Promise<string[]> {
  const after = await snapshotFiles(folders);
  return [...after]
    .filter(([path, stamp]) => before.get(path) !== stamp)
    .map(([path]) => path)
    .sort();
}
