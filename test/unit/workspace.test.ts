import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
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
  it('writes and reads files inside it', async () => {
    await workspace.write('data.csv', 'a,b\n');
    expect((await workspace.read('data.csv')).toString()).toBe('a,b\n');
    await workspace.write('./nested/../data.csv', 'again');
    expect((await workspace.read('data.csv')).toString()).toBe('again');
  });

  it.each(['../outside', '/etc/passwd', '', 'a/../../b', 'nul\0byte', 'missing-folder/file'])(
    'refuses %j',
    async (path) => {
      await expect(workspace.write(path, 'x')).rejects.toBeInstanceOf(WorkspacePathError);
    },
  );

  it('refuses to follow links out of it', async () => {
    await writeFile(join(root, 'host-secret'), 'secret');
    await symlink(join(root, 'host-secret'), join(workspace.hostPath, 'link'));
    await symlink(root, join(workspace.hostPath, 'dir-link'));
    await expect(workspace.read('link')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(workspace.write('link', 'overwrite')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(workspace.read('dir-link/host-secret')).rejects.toBeInstanceOf(WorkspacePathError);
  });

  it('refuses files over the read limit, naming the option', async () => {
    await workspace.write('big.bin', Buffer.alloc(100));
    await expect(workspace.read('big.bin', 10)).rejects.toBeInstanceOf(WorkspaceFileTooLargeError);
    await expect(workspace.read('big.bin', 10)).rejects.toThrow(/maxBytes/);
  });
});
