/**
 * A size-limited filesystem for one session: an ext4 image file, loop-mounted on the host.
 *
 * Why this mechanism: it needs nothing but root, loop devices and mkfs.ext4 on a stock Docker host,
 * whatever filesystem holds TALLY_HOME (project quotas need XFS or ext4 mounted with `prjquota`;
 * engine volumes with a size option need overlay2 on XFS with `pquota`). A tmpfs counted against the
 * container's memory would cap the disk, but the host could no longer deliver inputs into it or read
 * results out of it as files, and a kernel restart (a fresh container) would lose it. The image is
 * sparse: the host allocates its blocks only as the session uses them, and never more than its size,
 * whatever the sandbox does inside (many files, hard links, sparse files and fallocate all count in
 * the image's own blocks and inodes).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, realpath, rm, statfs } from 'node:fs/promises';
import { join } from 'node:path';

const MIB = 1024 * 1024;
/** One inode per 16 KiB, like mke2fs's default: many tiny files run out of inodes, not host disk. */
const BYTES_PER_INODE = 16 * 1024;
const COMMAND_TIMEOUT_MS = 30_000;
const PROBE_SIZE_MB = 8;

export interface LoopFilesystemOptions {
  /** Where the image file goes; it must not exist. Keep it out of the sandbox's reach. */
  imagePath: string;
  /** An existing, empty folder to mount the filesystem on. */
  mountPath: string;
  /** Size of the filesystem, in MiB: the most the image can take on the host's disk. */
  sizeMb: number;
}

export class LoopFilesystem {
  private constructor(
    readonly imagePath: string,
    readonly mountPath: string,
    readonly sizeMb: number,
  ) {}

  /** Creates the image, makes the filesystem and mounts it; leaves nothing behind when a step fails. */
  static async create({ imagePath, mountPath, sizeMb }: LoopFilesystemOptions): Promise<LoopFilesystem> {
    try {
      const image = await open(imagePath, 'wx', 0o600);
      try {
        await image.truncate(sizeMb * MIB); // sparse: no block is allocated yet
      } finally {
        await image.close();
      }
      // No journal, no reserved blocks, inode tables left to read as the image's zeros: making it
      // writes a few hundred KiB, and the whole size is the session's. A host crash loses nothing
      // worth a journal: start-up reaps every workspace anyway.
      await run('mkfs.ext4', [
        '-q',
        '-F',
        '-b',
        '4096',
        '-i',
        String(BYTES_PER_INODE),
        '-m',
        '0',
        '-O',
        '^has_journal',
        '-E',
        'lazy_itable_init=1,nodiscard',
        imagePath,
      ]);
      // nosuid, nodev, noexec: nothing written there runs on the host, nor (like /tmp) in the sandbox.
      // discard: files deleted inside free their blocks in the image, so the host gets the space back.
      await run('mount', ['-t', 'ext4', '-o', 'loop,nosuid,nodev,noexec,discard,noinit_itable', imagePath, mountPath]);
    } catch (error) {
      await rm(imagePath, { force: true }).catch(() => {});
      throw error;
    }
    return new LoopFilesystem(imagePath, mountPath, sizeMb);
  }

  /**
   * Says why loop filesystems cannot be made in `folder`, or undefined when they can: it makes,
   * mounts and removes a small one. Not root (rootless Docker, Docker Desktop), no loop devices or
   * no mkfs.ext4 all show here. `visible`, when given, is asked whether a folder made inside the
   * mounted filesystem is seen by whoever must see it (the Docker engine, when tally runs in a
   * container: the mount reaches the host only with shared propagation); its answer is the reason.
   */
  static async probe(
    folder: string,
    visible?: (inside: string) => Promise<string | undefined>,
  ): Promise<string | undefined> {
    const name = `.probe-${randomBytes(4).toString('hex')}`;
    const mountPath = join(folder, name);
    try {
      await mkdir(mountPath, { mode: 0o700 });
      const probe = await LoopFilesystem.create({ imagePath: `${mountPath}.ext4`, mountPath, sizeMb: PROBE_SIZE_MB });
      try {
        return await visible?.(mountPath);
      } finally {
        await probe.remove();
      }
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    } finally {
      // A probe that failed to go away may still be mounted: unmount before removing the folder,
      // so the removal neither empties a mounted image nor leaks its loop device.
      await unmount(mountPath).catch(() => {});
      await rm(mountPath, { recursive: true, force: true }).catch(() => {});
      await rm(`${mountPath}.ext4`, { force: true }).catch(() => {});
    }
  }

  /**
   * Unmounts every filesystem mounted below `root`, deepest first, so the tree can be removed
   * without descending into (and emptying) a mounted image, nor failing on its busy mount point.
   * Returns how many it unmounted.
   */
  static async unmountAllUnder(root: string): Promise<number> {
    const prefix = `${await realpath(root).catch(() => root)}/`;
    const table = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
    const below = table
      .split('\n')
      .map((line) => line.split(' ')[4])
      .filter((point): point is string => point !== undefined)
      .map(unescapeMountPoint)
      .filter((point) => point.startsWith(prefix))
      .sort((left, right) => right.length - left.length);
    for (const point of below) await unmount(point);
    return below.length;
  }

  /** Unmounts what is mounted exactly at `point` (lazily when busy); nothing when nothing is. */
  static async unmountAt(point: string): Promise<void> {
    const path = await realpath(point).catch(() => point);
    const table = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
    const mounted = table.split('\n').some((line) => unescapeMountPoint(line.split(' ')[4] ?? '') === path);
    if (mounted) await unmount(path);
  }

  /**
   * True when the filesystem has (nearly) no room left, in blocks or in inodes: what tells a full
   * quota from another ENOSPC (the memory-backed /tmp). ext4 already keeps its metadata reserve out
   * of `bavail`; the margin covers a write that failed for a bit more than what was left.
   */
  async isFull(): Promise<boolean> {
    const stats = await statfs(this.mountPath);
    const freeBytes = stats.bavail * stats.bsize;
    return freeBytes < Math.max(MIB, (this.sizeMb * MIB) / 50) || stats.ffree === 0;
  }

  /** Unmounts (lazily when still busy) and deletes the image; the loop device goes with the mount. */
  async remove(): Promise<void> {
    await unmount(this.mountPath);
    await rm(this.imagePath, { force: true });
  }
}

async function unmount(path: string): Promise<void> {
  try {
    await run('umount', [path]);
  } catch (error) {
    // Busy (a process still has a file open there): detach it now, the kernel frees it when unused.
    // The folder below is then empty, so removing it cannot reach into the image.
    await run('umount', ['--lazy', path]).catch(() => {
      throw error;
    });
  }
}

/** /proc/self/mountinfo writes space, tab, newline and backslash in paths as octal escapes. */
function unescapeMountPoint(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: COMMAND_TIMEOUT_MS }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const said = String(stderr).trim().split('\n').slice(-2).join(' | ');
      reject(new Error(`${command} ${args.at(-1) ?? ''} failed: ${said || error.message}`, { cause: error }));
    });
  });
}
