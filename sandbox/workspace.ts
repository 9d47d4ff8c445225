/**
 * The per-kernel workspace: a host directory bind-mounted at /workspace, the sandbox's only
 * writable place that outlives a restart. Host-side reads and writes stay inside it, and never
 * follow a link that code in the sandbox may have planted.
 */
import { constants } from 'node:fs';
import { chmod, chown, mkdir, open, realpath, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { WorkspaceFileTooLargeError, WorkspacePathError } from '../src/errors.js';

const SANDBOX_UID = 10001;
const SANDBOX_GID = 10001;
export const DEFAULT_READ_LIMIT_BYTES = 64 * 1024 * 1024;

export class Workspace {
  constructor(readonly hostPath: string) {}

  static async create(root: string, id: string): Promise<Workspace> {
    const hostPath = join(root, id);
    await mkdir(hostPath, { recursive: true, mode: 0o700 });
    await handOver(hostPath, 0o777);
    return new Workspace(hostPath);
  }

  /** Absolute host path of `path` (relative to the workspace), refusing anything that escapes it. */
  async resolve(path: string): Promise<string> {
    if (path === '' || isAbsolute(path) || path.includes('\0')) {
      throw new WorkspacePathError(path, 'give a relative path inside the workspace');
    }
    const normalized = normalize(path);
    if (normalized === '..' || normalized.startsWith(`..${sep}`)) {
      throw new WorkspacePathError(path, 'it leaves the workspace');
    }
    const root = await realpath(this.hostPath);
    const target = join(root, normalized);
    const parent = await realpath(dirname(target)).catch(() => null);
    if (parent === null) throw new WorkspacePathError(path, 'its folder does not exist');
    if (parent !== root && !parent.startsWith(root + sep)) {
      throw new WorkspacePathError(path, 'it resolves outside the workspace through a link');
    }
    return join(parent, normalized.split(sep).pop() ?? '');
  }

  async write(path: string, data: Uint8Array | string): Promise<void> {
    const target = await this.resolve(path);
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
    const file = await open(target, flags, 0o644).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ELOOP') throw new WorkspacePathError(path, 'it is a link');
      throw error;
    });
    try {
      await file.writeFile(data);
    } finally {
      await file.close();
    }
    await handOver(target, 0o644);
  }

  async read(path: string, maxBytes = DEFAULT_READ_LIMIT_BYTES): Promise<Buffer> {
    const target = await this.resolve(path);
    const file = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ELOOP') throw new WorkspacePathError(path, 'it is a link');
      throw error;
    });
    try {
      const info = await file.stat();
      if (!info.isFile()) throw new WorkspacePathError(path, 'it is not a regular file');
      if (info.size > maxBytes) throw new WorkspaceFileTooLargeError(path, info.size, maxBytes);
      return await file.readFile();
    } finally {
      await file.close();
    }
  }

  async remove(): Promise<void> {
    await rm(this.hostPath, { recursive: true, force: true });
  }
}

/** Gives a host-created path to the sandbox user; without root, opens it up instead. */
async function handOver(path: string, fallbackMode: number): Promise<void> {
  try {
    await chown(path, SANDBOX_UID, SANDBOX_GID);
  } catch {
    await chmod(path, fallbackMode);
  }
}
