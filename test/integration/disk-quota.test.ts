/**
 * The per-session disk quota: however a cell fills /workspace, it fails with a message that says so,
 * the next cell works, and the host's disk gives the session no more than the quota.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DockerKernel } from '../../sandbox/docker-kernel.js';
import type { Execution } from '../../src/ports/sandbox.js';
import { loopDevicesUnder, mountsUnder } from '../support/host-mounts.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

const QUOTA_MB = 64;
const MIB = 1024 * 1024;
/** The host's own bookkeeping of the image (its extent tree) and the mount point's folder. */
const HOST_OVERHEAD_BYTES = 2 * MIB;
const QUOTA_FULL = `the session's disk quota of ${QUOTA_MB} MB is full`;
/**
 * What gives back the space of a deleted file that had hard links, by runtime. gVisor's gofer keeps a host
 * descriptor on a file once a link to it was made, until the sandbox ends (runsc 20221219, measured: 40 MB
 * held with one link or five hundred, freed when the container exits); the next kernel frees it.
 */
const HARD_LINKED_SPACE_BACK: Record<string, 'at once' | 'with the next kernel'> = {
  runc: 'at once',
  runsc: 'with the next kernel',
};

let fixture: TestSandbox;
let kernel: DockerKernel;

beforeAll(async () => {
  fixture = await startTestSandbox({ diskMb: QUOTA_MB, limits: { tmpMb: 16 } });
  kernel = (await fixture.sandbox.acquire('filler')) as DockerKernel;
  await kernel.run('canary = "alive"');
});
afterAll(async () => fixture?.close());

/** What the session takes of the host's disk: allocated blocks under the workspace root, this filesystem only. */
function hostBytes(): number {
  const output = execFileSync('du', ['-s', '-x', '--block-size=1', fixture.workspaceRoot], { encoding: 'utf8' });
  return Number(output.split('\t')[0]);
}

/** Mount points below a folder, as this process sees them. */
async function expectQuotaFull(code: string): Promise<void> {
  const execution = await kernel.run(code);
  expect(execution.error?.name, shown(execution)).toBe('OSError');
  expect(execution.error?.value).toContain(QUOTA_FULL);
  expect(execution.error?.value).toContain('No space left on device');
  expect(execution.error?.traceback).toContain('<cell-');
  expect(hostBytes()).toBeLessThanOrEqual(QUOTA_MB * MIB + HOST_OVERHEAD_BYTES);
}

function shown(execution: Execution): string {
  return `${execution.error?.name}: ${execution.error?.value} ${execution.stdout}`;
}

/**
 * The next cell works, keeps the earlier variables, and the space comes back once the files go (after
 * `thenFree`, when given). Not journaled: a replay after the restart below must not delete what the
 * session wrote since.
 */
async function expectWorkingAfterCleanUp(thenFree?: () => Promise<unknown>): Promise<void> {
  const cleaned = await kernel.run(
    'import os, shutil\nfor name in os.listdir("."):\n    shutil.rmtree(name) if os.path.isdir(name) else os.remove(name)\ncanary + "!"',
    { journal: false },
  );
  expect(cleaned.error, shown(cleaned)).toBeUndefined();
  expect(cleaned.result?.text).toBe("'alive!'");
  await thenFree?.();
  // Deleted blocks are discarded from the image, so the host gets them back.
  for (let tries = 0; hostBytes() > 8 * MIB && tries < 50; tries += 1) await sleep(100);
  expect(hostBytes()).toBeLessThanOrEqual(8 * MIB);
}

describe('the per-session disk quota', () => {
  it('is in force on this host (root, loop devices, mkfs.ext4), on a filesystem of its own', async () => {
    expect(fixture.sandbox.diskQuotaMb, 'the disk quota needs root, loop devices and mkfs.ext4').toBe(QUOTA_MB);
    expect(mountsUnder(fixture.workspaceRoot)).toEqual([kernel.workspacePath]);
    const inside = await kernel.run('import os\ns = os.statvfs("/workspace")\ns.f_blocks * s.f_frsize // 2**20');
    expect(Number(inside.result?.text)).toBeGreaterThan(QUOTA_MB * 0.9);
    expect(Number(inside.result?.text)).toBeLessThanOrEqual(QUOTA_MB);
    expect(hostBytes()).toBeLessThan(4 * MIB); // sparse: nothing written, nothing taken
  });

  it('stops many small files, and many empty ones (inodes)', async () => {
    await expectQuotaFull(
      'import os\nos.makedirs("many")\nfor i in range(2000):\n    with open(f"many/{i}", "wb") as f:\n        f.write(b"x" * 2**20)',
    );
    await expectWorkingAfterCleanUp();
    await expectQuotaFull(
      'import os\nos.makedirs("tiny")\nfor i in range(100_000):\n    open(f"tiny/{i}", "wb").close()',
    );
    await expectWorkingAfterCleanUp();
  });

  it('stops one big file', async () => {
    await expectQuotaFull('with open("big.bin", "wb") as f:\n    for _ in range(200):\n        f.write(b"x" * 2**20)');
    await expectWorkingAfterCleanUp();
  });

  it('stops hard links to a big file and the writes after them', async () => {
    await expectQuotaFull(`import os
with open("big.bin", "wb") as f:
    f.write(b"x" * 40 * 2**20)
for i in range(500):
    os.link("big.bin", f"link-{i}")
with open("more.bin", "wb") as f:
    for _ in range(40):
        f.write(b"y" * 2**20)`);
    const back = HARD_LINKED_SPACE_BACK[fixture.sandbox.runtime];
    await expectWorkingAfterCleanUp(back === 'with the next kernel' ? () => kernel.restart() : undefined);
  });

  it('stops sparse files by the blocks they use, and fallocate', async () => {
    // 200 MiB written across 3.2 GiB of holes (under the 4 GiB per-file limit).
    await expectQuotaFull(
      'with open("sparse.bin", "wb") as f:\n    for i in range(200):\n        f.seek(i * 16 * 2**20)\n        f.write(b"x" * 2**20)',
    );
    await expectWorkingAfterCleanUp();
    await expectQuotaFull(
      'import os\nfd = os.open("reserved.bin", os.O_CREAT | os.O_WRONLY)\ntry:\n    os.posix_fallocate(fd, 0, 200 * 2**20)\nfinally:\n    os.close(fd)',
    );
    await expectWorkingAfterCleanUp();
  });

  it('counts inputs the host delivers against the same quota', async () => {
    await kernel.writeFile('extract.bin', Buffer.alloc(40 * MIB, 1));
    await expectQuotaFull('with open("out.bin", "wb") as f:\n    for _ in range(40):\n        f.write(b"x" * 2**20)');
    // And the host's own delivery past the quota is refused by name, leaving no partial file.
    await expect(kernel.writeFile('second.bin', Buffer.alloc(40 * MIB, 1))).rejects.toThrow(
      /The session's disk quota of 64 MB is full, so \/inputs\/second\.bin could not be delivered/,
    );
    expect((await kernel.run('import os\nos.path.exists("/inputs/second.bin")', { journal: false })).result?.text).toBe(
      'False',
    );
    await kernel.removeInput('extract.bin');
    await expectWorkingAfterCleanUp();
  });

  it('leaves other out-of-space errors as they are (the memory-backed /tmp)', async () => {
    const execution = await kernel.run(
      'with open("/tmp/fill.bin", "wb") as f:\n    for _ in range(64):\n        f.write(b"x" * 2**20)',
    );
    expect(execution.error?.value).toContain('No space left on device');
    expect(execution.error?.value).not.toContain('quota');
    const next = await kernel.run('import os\nos.remove("/tmp/fill.bin")\ncanary', { journal: false });
    expect(next.result?.text).toBe("'alive'");
  });

  it("keeps the session's files through a kernel restart, still under the quota", async () => {
    // Not journaled: only the workspace itself, not a replay, can bring the file back.
    const written = await kernel.run('open("kept.txt", "w").write("still here")', { journal: false });
    expect(written.error).toBeUndefined();
    expect((await kernel.run('kept = 42')).error).toBeUndefined();
    const before = kernel.containerId;
    const restart = await kernel.restart();
    expect(kernel.containerId).not.toBe(before);
    expect(restart.failedReplays).toBe(0);
    const after = await kernel.run('(open("/workspace/kept.txt").read(), kept, canary)');
    expect(after.result?.text).toBe("('still here', 42, 'alive')");
    await expectQuotaFull('with open("big.bin", "wb") as f:\n    for _ in range(200):\n        f.write(b"x" * 2**20)');
    await expectWorkingAfterCleanUp();
  });

  it('unmounts and deletes the filesystem on disposal, and reaps those a crashed run left', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tally-quota-orphans-'));
    const crashed = await startTestSandbox({
      instance: `${fixture.instance}-orphans`,
      workspaceRoot: root,
      diskMb: 16,
    });
    const disposed = (await crashed.sandbox.acquire('disposed')) as DockerKernel;
    expect(mountsUnder(root)).toEqual([disposed.workspacePath]);
    await disposed.dispose();
    expect(mountsUnder(root)).toEqual([]);
    expect(loopDevicesUnder(root)).toEqual([]);
    expect(existsSync(disposed.workspacePath) || existsSync(`${disposed.workspacePath}.ext4`)).toBe(false);
    const left = (await crashed.sandbox.acquire('left')) as DockerKernel;
    expect((await left.run('open("x", "w").write("x")')).error).toBeUndefined();
    expect(loopDevicesUnder(root)).toHaveLength(1);
    // No close(): the process "crashed". The next start of the same instance unmounts and removes it.
    const restarted = await startTestSandbox({ instance: crashed.instance, workspaceRoot: root, diskMb: 16 });
    expect(mountsUnder(root)).toEqual([]);
    expect(existsSync(left.workspacePath)).toBe(false);
    expect(loopDevicesUnder(root)).toEqual([]);
    await restarted.close();
    await rm(root, { recursive: true, force: true });
  });
});
