/**
 * A kernel's files on the host, in two folders:
 * - `work/`, mounted read-write at /workspace: the sandbox's own place. Code in the sandbox can plant
 *   links or swap folders there at any moment, so the host only reads from it, one component at a
 *   time without following links.
 * - `inputs/`, mounted read-only at /inputs: where the host delivers files (extracts, uploads). The
 *   sandbox cannot change anything in it, so host writes cannot be redirected.
 */
import { chmod, chown, type FileHandle, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { WorkspaceFileTooLargeError } from '../src/errors.js';
import { checkRelative, openInside } from './open-inside.js';
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

  /**
   * Reads a file the kernel wrote at /workspace/<path>, never leaving the workspace (see
   * open-inside.ts). At most `maxBytes` are read, even from a file that grows meanwhile.
   */
  async readWork(path: string, maxBytes = DEFAULT_READ_LIMIT_BYTES): Promise<Buffer> {
    const file = await openInside(this.workPath, path);
    try {
      return await readAtMost(file, maxBytes, path);
    } finally {
      await file.close();
    }
  }

  /** Removes both folders, however deep the sandbox nested its own; throws when that fails. */
  async remove(): Promise<void> {
    await removeTree(this.hostPath);
  }
}

/**
 * Reads the whole file if it has at most `maxBytes`, else refuses. Never reads more than one byte
 * past the limit, even from a file that grows after `stat()` (or claims a size it does not have).
 */
export async function readAtMost(
  file: Pick<FileHandle, 'stat' | 'read'>,
  maxBytes: number,
  path: string,
): Promise<Buffer> {
  const { size } = await file.stat();
  if (size > maxBytes) throw new WorkspaceFileTooLargeError(path, size, maxBytes);
  let buffer = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > maxBytes) throw new WorkspaceFileTooLargeError(path, length, maxBytes);
      const larger = Buffer.allocUnsafe(Math.min(maxBytes + 1, buffer.length * 2));
      buffer.copy(larger, 0, 0, length);
      buffer = larger;
    }
    const { bytesRead } = await file.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) return buffer.subarray(0, length);
    length += bytesRead;
  }
}
