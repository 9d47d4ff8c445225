/**
 * A kernel's files on the host, in two folders:
 * - `work/`, mounted read-write at /workspace: the sandbox's own place. Code in the sandbox can plant
 *   links or swap folders there at any moment, so the host only reads from it, one component at a
 *   time without following links.
 * - `inputs/`, mounted read-only at /inputs: where the host delivers files (extracts, uploads). The
 *   sandbox cannot change anything in it, so host writes cannot be redirected.
 * - `outbox/`, mounted read-write at /outbox: where the driver leaves a reply's large payloads (see
 *   kernel/outbox.py); the host reads each one like a file in work/ and removes it.
 *
 * With a disk quota all three live on the kernel's own loop-mounted filesystem (see loop-filesystem.ts),
 * so together they hold at most that much, and the host's disk gives no more to the session.
 */
import { randomUUID } from 'node:crypto';
import { writeFile as writeFileWhole } from 'node:fs';
import { chmod, chown, type FileHandle, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { WorkspaceFileTooLargeError, WorkspaceFullError, WorkspacePathError } from '../src/base/errors.js';
import { LoopFilesystem } from './loop-filesystem.js';
import { checkRelative, claimInside, openInside } from './open-inside.js';
import { removeTree } from './remove-tree.js';

/** fs.writeFile with callbacks: one write for the whole buffer (the promise API writes 512 KiB at a time). */
const writeFile = promisify(writeFileWhole);
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
  readonly outboxPath: string;
  /**
   * Resolves once the folders (and their filesystem) exist; rejects, having removed what it made,
   * when they cannot be made. A container may be created meanwhile, but not started.
   */
  readonly ready: Promise<void>;
  private disk: LoopFilesystem | undefined;
  private removal: Promise<void> | undefined;

  private constructor(
    readonly hostPath: string,
    options: WorkspaceOptions,
  ) {
    this.workPath = join(hostPath, 'work');
    this.inputsPath = join(hostPath, 'inputs');
    this.outboxPath = join(hostPath, 'outbox');
    this.ready = this.prepare(options);
    this.ready.catch(() => {}); // the caller hears of it through `ready`
  }

  /** The quota of the folders together, in MiB; undefined when there is none. */
  get diskMb(): number | undefined {
    return this.disk?.sizeMb;
  }

  /** Starts making the kernel's folders and returns at once, so the container can be created meanwhile. */
  static begin(root: string, id: string, options: WorkspaceOptions = {}): Workspace {
    return new Workspace(join(root, id), options);
  }

  static async create(root: string, id: string, options: WorkspaceOptions = {}): Promise<Workspace> {
    const workspace = Workspace.begin(root, id, options);
    await workspace.ready;
    return workspace;
  }

  private async prepare(options: WorkspaceOptions): Promise<void> {
    // Only this user passes the kernel's folder: other local users must not read a session's inputs,
    // nor run what the sandbox's user (10001) planted in work/, setuid bit and all. Docker mounts the
    // folders as root, so the container does not need to pass it.
    await mkdir(this.hostPath, { recursive: true, mode: 0o700 });
    try {
      if (options.diskMb !== undefined) {
        // The image sits beside the mount point, never inside a folder the sandbox sees.
        const imagePath = `${this.hostPath}.ext4`;
        this.disk = await LoopFilesystem.create({ imagePath, mountPath: this.hostPath, sizeMb: options.diskMb });
      }
      await this.makeFolders();
    } catch (error) {
      await this.removeNow().catch(() => {});
      throw error;
    }
  }

  /** True when the quota is (nearly) used up; always false without one. */
  async isDiskFull(): Promise<boolean> {
    return (await this.disk?.isFull()) ?? false;
  }

  private async makeFolders(): Promise<void> {
    await chmod(this.hostPath, 0o700); // also the root of a fresh filesystem
    await mkdir(this.inputsPath, { mode: 0o755 });
    for (const path of [this.workPath, this.outboxPath]) {
      await mkdir(path, { mode: 0o700 });
      try {
        await chown(path, SANDBOX_UID, SANDBOX_GID);
      } catch {
        await chmod(path, 0o777); // not root: let the sandbox user in anyway
      }
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
   * Takes the file the driver left in the outbox under `name` (see kernel/outbox.py), exactly once: it is first
   * renamed to a name of the host's own (atomic, so a second take finds nothing whatever the timing), then read,
   * exactly `bytes` long, without leaving the outbox, and removed (in the background: the reply need not wait for
   * the blocks to be freed).
   */
  async takeFromOutbox(name: string, bytes: number): Promise<Buffer> {
    const claimed = `.taken-${randomUUID()}`;
    await claimInside(this.outboxPath, name, claimed);
    try {
      const file = await openInside(this.outboxPath, claimed).catch((error: unknown) => {
        throw error instanceof WorkspacePathError ? new WorkspacePathError(name, error.reason) : error;
      });
      try {
        const { size } = await file.stat();
        if (size > bytes) throw new WorkspaceFileTooLargeError(`/outbox/${name}`, size, bytes);
        const data = Buffer.allocUnsafe(bytes);
        const { bytesRead } = await file.read(data, 0, bytes, 0);
        if (size < bytes || bytesRead < bytes) throw new WorkspacePathError(name, `it holds ${size} of ${bytes} bytes`);
        return data;
      } finally {
        await file.close();
      }
    } finally {
      rm(join(this.outboxPath, claimed), { force: true }).catch(() => {});
    }
  }

  /**
   * Removes the folders, however deep the sandbox nested its own, and their filesystem; throws
   * when that fails. Unmounted first: removing the tree must not run into a mounted image.
   */
  remove(): Promise<void> {
    // Once: a kernel that fails to start is removed by itself and by the sandbox that started it.
    this.removal ??= this.ready.then(
      () => this.removeNow(),
      () => {}, // a failed preparation has removed what it made
    );
    return this.removal;
  }

  private async removeNow(): Promise<void> {
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
