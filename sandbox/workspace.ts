/**
 * A kernel's files on the host, in two folders:
 * - `work/`, mounted read-write at /workspace: the sandbox's own place. Code in the sandbox can plant
 *   links or swap folders there at any moment, so the host only reads from it, one component at a
 *   time without following links.
 * - `inputs/`, mounted read-only at /inputs: where the host delivers files (extracts, uploads). The
 *   sandbox cannot change anything in it, so host writes cannot be redirected.
 *
 * With a disk quota both live on the kernel's own loop-mounted filesystem (see loop-filesystem.ts),
 * so together they hold at most that much, and the host's disk gives no more to the session.
 */
import { chmod, chown, type FileHandle, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { WorkspaceFileTooLargeError, WorkspaceFullError } from '../src/errors.js';
import { LoopFilesystem } from './loop-filesystem.js';
import { checkRelative, openInside } from './open-inside.js';
import { removeTree } from './remove-tree.js';

const SANDBOX_UID = 10001;
const SANDBOX_GID = 10001;
export const DEFAULT_READ_LIMIT_BYTES = 64 * 1024 * 1024;

export interface WorkspaceOptions {
  /**
   * What work/ and inputs/ may hold together, in MiB, on a filesystem of their own (the caller has
   * checked that this process can mount one: LoopFilesystem.probe). Default: no quota, plain folders.
   */
  diskMb?: number;
}

export class Workspace {
  readonly workPath: string;
  readonly inputsPath: string;

  constructor(
    readonly hostPath: string,
    private readonly disk?: LoopFilesystem,
  ) {
    this.workPath = join(hostPath, 'work');
    this.inputsPath = join(hostPath, 'inputs');
  }

  /** The quota of both folders together, in MiB; undefined when there is none. */
  get diskMb(): number | undefined {
    return this.disk?.sizeMb;
  }

  static async create(root: string, id: string, options: WorkspaceOptions = {}): Promise<Workspace> {
    const hostPath = join(root, id);
    // Only this user passes the kernel's folder: other local users must not read a session's inputs,
    // nor run what the sandbox's user (10001) planted in work/, setuid bit and all. Docker mounts the
    // two folders as root, so the container does not need to pass it.
    await mkdir(hostPath, { recursive: true, mode: 0o700 });
    let workspace = new Workspace(hostPath);
    try {
      if (options.diskMb !== undefined) {
        // The image sits beside the mount point, never inside a folder the sandbox sees.
        const imagePath = `${hostPath}.ext4`;
        workspace = new Workspace(
          hostPath,
          await LoopFilesystem.create({ imagePath, mountPath: hostPath, sizeMb: options.diskMb }),
        );
      }
      await workspace.makeFolders();
    } catch (error) {
      await workspace.remove().catch(() => {});
      throw error;
    }
    return workspace;
  }

  /** True when the quota is (nearly) used up; always false without one. */
  async isDiskFull(): Promise<boolean> {
    return (await this.disk?.isFull()) ?? false;
  }

  private async makeFolders(): Promise<void> {
    await chmod(this.hostPath, 0o700); // also the root of a fresh filesystem
    await mkdir(this.workPath, { mode: 0o700 });
    await mkdir(this.inputsPath, { mode: 0o755 });
    try {
      await chown(this.workPath, SANDBOX_UID, SANDBOX_GID);
    } catch {
      await chmod(this.workPath, 0o777); // not root: let the sandbox user in anyway
    }
  }

  /** Writes a file the kernel sees read-only at /inputs/<path>, creating folders as needed. */
  async writeInput(path: string, data: Uint8Array | string): Promise<void> {
    const target = join(this.inputsPath, checkRelative(path));
    try {
      await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      await writeFile(target, data, { mode: 0o644 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (this.diskMb !== undefined && (code === 'ENOSPC' || code === 'EDQUOT')) {
        await rm(target, { force: true }).catch(() => {}); // a partial file would only take more room
        throw new WorkspaceFullError(this.diskMb, `/inputs/${path}`, error);
      }
      throw error;
    }
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

  /**
   * Removes both folders, however deep the sandbox nested its own, and their filesystem; throws
   * when that fails. Unmounted first: removing the tree must not run into a mounted image.
   */
  async remove(): Promise<void> {
    await this.disk?.remove();
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
