/**
 * Opening a file in a folder that code in the sandbox controls. It can plant links and swap folders
 * for links at any moment, so a path is never resolved as a whole: the walk opens the root, then each
 * component relative to the folder already open, never following a link. Node has no `openat`, so
 * each step goes through `/proc/self/fd/<folder>/<name>`: the kernel resolves the magic link to the
 * open folder itself, not to a path, and `O_NOFOLLOW` covers the name. Nothing outside the root is
 * ever opened, so nothing about the host's files shows in what is refused.
 */
import { constants } from 'node:fs';
import { type FileHandle, open, rename, stat } from 'node:fs/promises';
import { isAbsolute, normalize, sep } from 'node:path';
import { WorkspacePathError } from '../src/base/errors.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
const FOLDER = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
/** O_NONBLOCK: a FIFO the sandbox planted opens at once (and is refused), instead of hanging the host. */
const FILE = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;

/** A relative path that stays inside its folder, normalized; throws for anything else. */
export function checkRelative(path: string): string {
  if (path === '' || isAbsolute(path) || path.includes('\0')) {
    throw new WorkspacePathError(path, 'give a relative path inside the workspace');
  }
  const normalized = normalize(path);
  if (normalized === '..' || normalized.startsWith(`..${sep}`) || normalized === '.') {
    throw new WorkspacePathError(path, 'it leaves the workspace');
  }
  return normalized;
}

/** Opens the regular file at `path` under `root` without leaving `root`; the caller closes it. */
export async function openInside(root: string, path: string): Promise<FileHandle> {
  const names = checkRelative(path)
    .split(sep)
    .filter((name) => name !== '');
  if (names.some((name) => name === '.' || name === '..'))
    throw new WorkspacePathError(path, 'it leaves the workspace');
  let current = await open(root, FOLDER);
  try {
    await requireProcFd(current, path);
    for (const [index, name] of names.entries()) {
      const last = index === names.length - 1;
      const next = await open(`/proc/self/fd/${current.fd}/${name}`, last ? FILE : FOLDER).catch(
        (error: NodeJS.ErrnoException) => {
          throw refusal(path, error);
        },
      );
      await current.close();
      current = next;
    }
    if (!(await current.stat()).isFile()) throw new WorkspacePathError(path, 'it is not a regular file');
    return current;
  } catch (error) {
    await current.close().catch(() => {});
    throw error;
  }
}

/**
 * Renames the entry `name` directly in `root` to `claimed` (a name only the host uses), through the open folder as
 * the walk does: the rename is atomic, so of two callers claiming the same entry exactly one succeeds (the other is
 * told it does not exist), and a link is renamed as the link it is, never followed.
 */
export async function claimInside(root: string, name: string, claimed: string): Promise<void> {
  if (checkRelative(name).includes(sep) || claimed.includes(sep)) {
    throw new WorkspacePathError(name, 'give a name directly in its folder');
  }
  const folder = await open(root, FOLDER);
  try {
    await requireProcFd(folder, name);
    await rename(`/proc/self/fd/${folder.fd}/${name}`, `/proc/self/fd/${folder.fd}/${claimed}`).catch(
      (error: NodeJS.ErrnoException) => {
        throw refusal(name, error);
      },
    );
  } finally {
    await folder.close();
  }
}

/** Without a working /proc/self/fd the walk cannot stay inside: refuse rather than fall back to paths. */
async function requireProcFd(folder: FileHandle, path: string): Promise<void> {
  const [opened, seen] = await Promise.all([folder.stat(), stat(`/proc/self/fd/${folder.fd}`).catch(() => undefined)]);
  if (seen === undefined || seen.ino !== opened.ino || seen.dev !== opened.dev) {
    throw new WorkspacePathError(path, 'the host cannot open workspace files safely without /proc/self/fd');
  }
}

function refusal(path: string, error: NodeJS.ErrnoException): Error {
  switch (error.code) {
    case 'ENOENT':
      return new WorkspacePathError(path, 'it does not exist');
    case 'ELOOP':
      return new WorkspacePathError(path, 'it is a link');
    case 'ENOTDIR':
      return new WorkspacePathError(path, 'it goes through a link or a file');
    default:
      return error;
  }
}
