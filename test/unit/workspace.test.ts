import { mkdir, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Workspace } from '../../sandbox/workspace.js';
import { WorkspaceFileTooLargeError, WorkspacePathError } from '../../src/errors.js';

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
  });

  it('checks the file it opened, not only the path it checked', async () => {
    // A folder swapped for a link is caught by the path check; the fd check backs it up.
    await mkdir(join(workspace.workPath, 'out'));
    await writeFile(join(root, 'secret.txt'), 'secret');
    await rename(join(workspace.workPath, 'out'), join(workspace.workPath, 'old'));
    await symlink(root, join(workspace.workPath, 'out'));
    await expect(workspace.readWork('out/secret.txt')).rejects.toBeInstanceOf(WorkspacePathError);
  });

  it('refuses files over the read limit, naming the option', async () => {
    await writeFile(join(workspace.workPath, 'big.bin'), Buffer.alloc(100));
    await expect(workspace.readWork('big.bin', 10)).rejects.toBeInstanceOf(WorkspaceFileTooLargeError);
    await expect(workspace.readWork('big.bin', 10)).rejects.toThrow(/maxBytes/);
  });
});
