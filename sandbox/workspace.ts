/**
 * A kernel's files on the host, in two folders:
 * - `work/`, mounted read-write at /workspace: the sandbox's own place. Code in the sandbox can plant
 *   links or swap folders there at any moment, so the host only reads from it, and checks the file it
 *   actually opened.
 * - `inputs/`, mounted read-only at /inputs: where the host delivers files (extracts, uploads). The
 *   sandbox cannot change anything in it, so host writes cannot be redirected.
 */
import { constants } from 'node:fs';
import { chmod, chown, mkdir, open, realpath, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { WorkspaceFileTooLargeError, WorkspacePathError } from '../src/errors.js';
import { removeTree } from './remove-tree.js';

const SANDBOX_UID = 10001;
const SANDBOX_GID = 10001;
export const DEFAULT_READ_LIMIT_BYTES = 64 * 1024 * 1024;

export class Workspace {
  readonly workPath: string;
  readonly inputsPath: string;

  constructor(readonly hostPath: string) {
    this.workPath = join(hostPath, 'work');
    this.inputsPath = join(hostPath, 'inputs');
  }

  static async create(root: string, id: string): Promise<Workspace> {
    const workspace = new Workspace(join(root, id));
    // Only this user passes the kernel's folder: other local users must not read a session's inputs,
    // nor run what the sandbox's user (10001) planted in work/, setuid bit and all. Docker mounts the
    // two folders as root, so the container does not need to pass it.
    await mkdir(workspace.hostPath, { recursive: true, mode: 0o700 });
    await chmod(workspace.hostPath, 0o700);
    await mkdir(workspace.workPath, { mode: 0o700 });
    await mkdir(workspace.inputsPath, { mode: 0o755 });
    try {
      await chown(workspace.workPath, SANDBOX_UID, SANDBOX_GID);
    } catch {
      await chmod(workspace.workPath, 0o777); // not root: let the sandbox user in anyway
    }
    return workspace;
  }

  /** Writes a file the kernel sees read-only at /inputs/<path>, creating folders as needed. */
  async writeInput(path: string, data: Uint8Array | string): Promise<void> {
    const target = join(this.inputsPath, checkRelative(path));
    await mkdir(dirname(target), { recursive: true, mode: 0o755 });
    await writeFile(target, data, { mode: 0o644 });
  }

  async removeInput(path: string): Promise<void> {
    await rm(join(this.inputsPath, checkRelative(path)), { recursive: true, force: true });
  }

  /** Reads a file the kernel wrote at /workspace/<path>, refusing anything that leads outside. */
  async readWork(path: string, maxBytes = DEFAULT_READ_LIMIT_BYTES): Promise<Buffer> {
    const root = await realpath(this.workPath);
    const target = join(root, checkRelative(path));
    const parent = await realpath(dirname(target)).catch(() => null);
    if (parent === null) throw new WorkspacePathError(path, 'its folder does not exist');
    if (!inside(root, parent)) throw new WorkspacePathError(path, 'it resolves outside the workspace through a link');
    const file = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ELOOP') throw new WorkspacePathError(path, 'it is a link');
        throw error;
      },
    );
    try {
      // The folders may have been swapped for links since the check above: look at what was opened.
      const opened = await realpath(`/proc/self/fd/${file.fd}`).catch(() => target);
      if (!inside(root, opened)) throw new WorkspacePathError(path, 'it resolves outside the workspace through a link');
      const info = await file.stat();
      if (!info.isFile()) throw new WorkspacePathError(path, 'it is not a regular file');
      if (info.size > maxBytes) throw new WorkspaceFileTooLargeError(path, info.size, maxBytes);
      return await file.readFile();
    } finally {
      await file.close();
    }
  }

  /** Removes both folders, however deep the sandbox nested its own; throws when that fails. */
  async remove(): Promise<void> {
    await removeTree(this.hostPath);
  }
}

function checkRelative(path: string): string {
  if (path === '' || isAbsolute(path) || path.includes('\0')) {
    throw new WorkspacePathError(path, 'give a relative path inside the workspace');
  }
  const normalized = normalize(path);
  if (normalized === '..' || normalized.startsWith(`..${sep}`) || normalized === '.') {
    throw new WorkspacePathError(path, 'it leaves the workspace');
  }
  return normalized;
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root + sep);
}
