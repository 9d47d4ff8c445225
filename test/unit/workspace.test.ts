import { spawn, spawnSync } from 'node:child_process';
import type { Stats } from 'node:fs';
import { type FileHandle, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAtMost, Workspace } from '../../sandbox/workspace.js';
import { WorkspaceFileTooLargeError, WorkspacePathError } from '../../src/base/errors.js';

const MIB = 1024 * 1024;
/** argv[1]: a workspace with out/ (a folder) and link (to a host folder); swaps them forever. */
const SWAP_FOREVER = `
const { renameSync } = require('node:fs');
const work = process.argv[1];
for (;;) {
  renameSync(work + '/out', work + '/real');
  renameSync(work + '/link', work + '/out');
  renameSync(work + '/out', work + '/link');
  renameSync(work + '/real', work + '/out');
}`;
let root: string;
let workspace: Workspace;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'tally-ws-'));
  workspace = await Workspace.create(root, 'k1');
});
afterEach(async () => rm(root, { recursive: true, force: true }));

describe('Workspace', () => {
  it('delivers inputs into their own folder, creating subfolders', async () => {
    await workspace.writeInput('extracts/churn/part-1.bin', 'data');
    expect(await readFile(join(workspace.inputsPath, 'extracts/churn/part-1.bin'), 'utf8')).toBe('data');
  });

  it('keeps the kernel folder private to the host user', async () => {
    const mode = async (path: string) => (await stat(path)).mode & 0o7777;
    expect(await mode(workspace.hostPath)).toBe(0o700);
    expect(await mode(workspace.workPath)).toBe(process.getuid?.() === 0 ? 0o700 : 0o777);
    expect(await mode(workspace.inputsPath)).toBe(0o755);
    expect(await mode(workspace.outboxPath)).toBe(process.getuid?.() === 0 ? 0o700 : 0o777);
  });

  it('reads what the kernel wrote', async () => {
    await mkdir(join(workspace.workPath, 'out'));
    await writeFile(join(workspace.workPath, 'out/result.txt'), 'done');
    expect((await workspace.readWork('out/result.txt')).toString()).toBe('done');
    expect((await workspace.readWork('./out/../out/result.txt')).toString()).toBe('done');
  });

  it.each(['../outside', '/etc/passwd', '', '.', 'a/../../b', 'nul\0byte'])('refuses the path %j', async (path) => {
    await expect(workspace.writeInput(path, 'x')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(workspace.readWork(path)).rejects.toBeInstanceOf(WorkspacePathError);
  });

  it('refuses links the sandbox planted, to files and to folders', async () => {
    await writeFile(join(root, 'host-secret'), 'secret');
    await symlink(join(root, 'host-secret'), join(workspace.workPath, 'link'));
    await symlink(root, join(workspace.workPath, 'dir-link'));
    await expect(workspace.readWork('link')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(workspace.readWork('dir-link/host-secret')).rejects.toBeInstanceOf(WorkspacePathError);
    // A link deeper down, and the same answer whether or not its target exists on the host.
    await mkdir(join(workspace.workPath, 'a'));
    await symlink(root, join(workspace.workPath, 'a', 'b'));
    await symlink(join(root, 'no-such-folder'), join(workspace.workPath, 'a', 'c'));
    await expect(workspace.readWork('a/b/host-secret')).rejects.toThrow(/goes through a link/);
    await expect(workspace.readWork('a/c/host-secret')).rejects.toThrow(/goes through a link/);
  });

  it('never reads through a folder the sandbox swaps for a link while the host reads', async () => {
    // A racing process swaps work/out between a real folder and a link to a host folder, as code in
    // the sandbox can. Resolving the path and then opening it reads the host's file now and then;
    // the component-by-component walk gets the real file or a refusal, never the host's.
    await mkdir(join(workspace.workPath, 'out'));
    await writeFile(join(workspace.workPath, 'out', 'secret.txt'), 'inside');
    await mkdir(join(root, 'host'));
    await writeFile(join(root, 'host', 'secret.txt'), 'HOST');
    await symlink(join(root, 'host'), join(workspace.workPath, 'link'));
    const swapper = spawn(process.execPath, ['-e', SWAP_FOREVER, workspace.workPath], { stdio: 'ignore' });
    const seen = { inside: 0, host: 0, refused: 0 };
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let attempt = 0; attempt < 3000; attempt += 1) {
        try {
          const text = (await workspace.readWork('out/secret.txt')).toString();
          seen[text === 'HOST' ? 'host' : 'inside'] += 1;
        } catch (error) {
          if (!(error instanceof WorkspacePathError)) throw error;
          seen.refused += 1;
        }
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(seen.host).toBe(0);
    expect(seen.inside).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0); // the race was on
  });

  it('refuses a FIFO at once instead of waiting on it', async () => {
    expect(spawnSync('mkfifo', [join(workspace.workPath, 'pipe')]).status).toBe(0);
    await expect(workspace.readWork('pipe')).rejects.toThrow(/not a regular file/);
  });

  it('reads no more than one byte past the limit from a file that grew after stat()', async () => {
    // The file says it is empty, then has 10 MiB by the time it is read.
    const content = Buffer.alloc(10 * MIB, 120);
    let requested = 0;
    const grown = {
      stat: async () => ({ size: 0 }) as Stats,
      read: async <T extends NodeJS.ArrayBufferView>(buffer: T, offset: number, length: number, position: number) => {
        requested += length;
        const bytesRead = content.copy(buffer as unknown as Buffer, offset, position, position + length);
        return { bytesRead, buffer };
      },
    } as Pick<FileHandle, 'stat' | 'read'>;
    await expect(readAtMost(grown, 4 * MIB, 'grown.bin')).rejects.toBeInstanceOf(WorkspaceFileTooLargeError);
    expect(requested).toBe(4 * MIB + 1);
    expect((await readAtMost(grown, 10 * MIB, 'grown.bin')).equals(content)).toBe(true);
  });

  it('takes a reply attachment from the outbox exactly once, and only a regular file of the size announced', async () => {
    // Each reply has its own name (its request's id), as here.
    const [taken, short, long, link, fifo] = [
      'a'.repeat(32),
      'b'.repeat(32),
      'c'.repeat(32),
      'd'.repeat(32),
      'e'.repeat(32),
    ] as const;
    const inOutbox = (name = '') => join(workspace.outboxPath, name);
    await writeFile(inOutbox(taken), 'payload');
    expect((await workspace.takeFromOutbox(taken, 7)).toString()).toBe('payload');
    await expect(workspace.takeFromOutbox(taken, 7)).rejects.toThrow(/does not exist/);
    await writeFile(inOutbox(short), 'short');
    await expect(workspace.takeFromOutbox(short, 7)).rejects.toThrow(/holds 5 of 7 bytes/);
    await writeFile(inOutbox(long), 'much too long');
    await expect(workspace.takeFromOutbox(long, 7)).rejects.toBeInstanceOf(WorkspaceFileTooLargeError);
    await writeFile(join(root, 'host-secret'), 'secret!');
    await symlink(join(root, 'host-secret'), inOutbox(link));
    await expect(workspace.takeFromOutbox(link, 7)).rejects.toThrow(/is a link/);
    expect(spawnSync('mkfifo', [inOutbox(fifo)]).status).toBe(0);
    await expect(workspace.takeFromOutbox(fifo, 7)).rejects.toThrow(/not a regular file/);
    expect(await readFile(join(root, 'host-secret'), 'utf8')).toBe('secret!');
    await new Promise((resolve) => setTimeout(resolve, 100)); // the removals run in the background
    expect(await readdir(inOutbox())).toEqual([]);
  });

  it('gives a reply attachment to one of two takes racing for it, whatever the timing', async () => {
    for (let round = 0; round < 50; round += 1) {
      const name = `race${String(round).padStart(28, '0')}`;
      await writeFile(join(workspace.outboxPath, name), 'payload');
      const takes = await Promise.allSettled([workspace.takeFromOutbox(name, 7), workspace.takeFromOutbox(name, 7)]);
      expect(takes.filter((take) => take.status === 'fulfilled')).toHaveLength(1);
      const refused = takes.find((take) => take.status === 'rejected');
      expect(String(refused?.status === 'rejected' ? refused.reason : '')).toMatch(
        new RegExp(`'${name}' is not allowed: it does not exist`),
      );
    }
  });

  it('refuses an outbox name with a folder in it', async () => {
    await expect(workspace.takeFromOutbox('sub/name', 7)).rejects.toThrow(/give a name directly in its folder/);
  });

  it('refuses files over the read limit, naming the option', async () => {
    await writeFile(join(workspace.workPath, 'big.bin'), Buffer.alloc(100));
    await expect(workspace.readWork('big.bin', 10)).rejects.toBeInstanceOf(WorkspaceFileTooLargeError);
    await expect(workspace.readWork('big.bin', 10)).rejects.toThrow(/maxBytes/);
  });
});
