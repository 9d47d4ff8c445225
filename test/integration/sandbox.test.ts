import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DockerKernel } from '../../sandbox/docker-kernel.js';
import { DockerSandbox } from '../../sandbox/docker-sandbox.js';
import { SandboxEngineUnavailableError, SandboxImageMissingError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { containersOf, docker } from '../support/docker.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

let fixture: TestSandbox;

beforeAll(async () => {
  fixture = await startTestSandbox({ poolSize: 1, idleTtlMs: 60_000 });
});
afterAll(async () => fixture?.close());

describe('the Docker sandbox', () => {
  it('hands out a warm kernel with the analysis stack already imported, then refills the pool', async () => {
    await fixture.sandbox.warmPool.settled();
    expect(fixture.sandbox.warmPool.available).toBe(1);
    const kernel = await fixture.sandbox.acquire('warm');
    const modules = await kernel.run(
      'import sys\nsorted(m for m in ("pandas", "numpy", "matplotlib.pyplot") if m in sys.modules)',
    );
    expect(modules.result?.text).toBe("['matplotlib.pyplot', 'numpy', 'pandas']");
    await fixture.sandbox.warmPool.settled();
    expect(fixture.sandbox.warmPool.available).toBe(1);
  });

  it('gives a session the same kernel every time and other sessions their own', async () => {
    const first = await fixture.sandbox.acquire('alice');
    expect(await fixture.sandbox.acquire('alice')).toBe(first);
    const [again, other] = await Promise.all([fixture.sandbox.acquire('alice'), fixture.sandbox.acquire('bob')]);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    await first.run('secret_of_alice = 1');
    await first.writeFile('alice.txt', 'private');
    expect((await other.run('secret_of_alice')).error?.name).toBe('NameError');
    expect((await other.run('import os\nos.path.exists("alice.txt")')).result?.text).toBe('False');
    expect(other.sessionId).toBe('bob');
  });

  // Under gVisor the engine's pids limit counts gVisor's own threads, so the cell's processes are capped inside.
  it.each([
    { runtime: 'runc', pidsLimit: 128, processCap: undefined },
    { runtime: 'runsc', pidsLimit: 1024, processCap: 128 },
  ])(
    'runs each kernel hardened under $runtime, as Docker itself reports it',
    async ({ runtime, pidsLimit, processCap }) => {
      const own = await startTestSandbox({ runtime });
      try {
        const kernel = (await own.sandbox.acquire('inspected')) as DockerKernel;
        await inspectHardened(kernel, own.instance, runtime, pidsLimit, processCap);
      } finally {
        await own.close();
      }
    },
  );

  async function inspectHardened(
    kernel: DockerKernel,
    instance: string,
    runtime: string,
    pidsLimit: number,
    processCap: number | undefined,
  ): Promise<void> {
    const info = await docker.getContainer(kernel.containerId).inspect();
    const host = info.HostConfig;
    expect(host.NetworkMode).toBe('none');
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.CapDrop).toEqual(['ALL']);
    expect(host.CapAdd ?? []).toEqual([]);
    expect(host.SecurityOpt).toContain('no-new-privileges');
    expect(host.Privileged).toBe(false);
    expect(host.Memory).toBe(512 * 1024 * 1024);
    expect(host.MemorySwap).toBe(512 * 1024 * 1024);
    expect(host.NanoCpus).toBe(1e9);
    expect(host.Runtime).toBe(runtime);
    expect(host.PidsLimit).toBe(pidsLimit);
    expect(host.Ulimits?.find((limit) => limit.Name === 'nproc')?.Soft).toBe(processCap);
    expect(host.Ulimits).toContainEqual({ Name: 'fsize', Soft: 4096 * 1024 * 1024, Hard: 4096 * 1024 * 1024 });
    expect(host.Binds).toEqual([
      `${kernel.workspacePath}/work:/workspace:rw`,
      `${kernel.workspacePath}/inputs:/inputs:ro`,
      `${kernel.workspacePath}/outbox:/outbox:rw`,
    ]);
    expect(info.Mounts.map((mount) => [mount.Destination, mount.RW]).sort()).toEqual([
      ['/inputs', false],
      ['/outbox', true],
      ['/workspace', true],
    ]);
    expect(Object.keys(host.Tmpfs ?? {})).toEqual(['/tmp']);
    expect(host.LogConfig?.Type).toBe('none'); // replies never land in a log file on the host
    expect(info.Config.User).toBe('10001:10001');
    expect(info.Config.Env.some((entry) => entry.startsWith('DOCKER') || entry.includes('KEY'))).toBe(false);
    expect(info.Config.Labels).toMatchObject({ 'tally.instance': instance, 'tally.managed': 'true' });
    expect(JSON.stringify(info)).not.toContain('docker.sock');
  }

  it('keeps the workspaces private to the host user', async () => {
    const kernel = (await fixture.sandbox.acquire('inspected')) as DockerKernel;
    const mode = (path: string) => statSync(path).mode & 0o7777;
    expect(mode(fixture.workspaceRoot)).toBe(0o700);
    expect(mode(kernel.workspacePath)).toBe(0o700);
    expect(statSync(join(kernel.workspacePath, 'work')).uid).toBe(10001);
    // Docker mounts the folders as root, so the kernel still reaches both.
    await kernel.writeFile('seen.txt', 'yes');
    const execution = await kernel.run('open("/inputs/seen.txt").read() + str(open("mine.txt", "w").write("x"))');
    expect(execution.result?.text).toBe("'yes1'");
  });

  it('disposes kernels idle past the TTL; the session then gets a fresh kernel', async () => {
    const kernel = (await fixture.sandbox.acquire('idle')) as DockerKernel;
    await kernel.run('left_behind = True');
    expect(await fixture.sandbox.sweep(Date.now())).toBe(0);
    const disposed = await fixture.sandbox.sweep(Date.now() + 61_000);
    expect(disposed).toBeGreaterThanOrEqual(1);
    expect(kernel.isDisposed).toBe(true);
    await expect(docker.getContainer(kernel.containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect(existsSync(kernel.workspacePath)).toBe(false);
    const fresh = await fixture.sandbox.acquire('idle');
    expect(fresh).not.toBe(kernel);
    expect((await fresh.run('left_behind')).error?.name).toBe('NameError');
  });

  it('does not sweep a kernel a session just acquired, nor one that is restarting', async () => {
    const kernel = (await fixture.sandbox.acquire('returning')) as DockerKernel;
    await kernel.run('kept = 1');
    kernel.lastActiveAt = Date.now() - 120_000; // idle past the TTL...
    expect(await fixture.sandbox.acquire('returning')).toBe(kernel); // ...until the session comes back
    expect(await fixture.sandbox.sweep()).toBe(0);
    kernel.lastActiveAt = Date.now() - 120_000;
    const restarting = kernel.restart();
    expect(await fixture.sandbox.sweep()).toBe(0);
    expect((await restarting).replayedCells).toBe(1);
    expect(kernel.isDisposed).toBe(false);
    expect((await kernel.run('kept')).result?.text).toBe('1');
  });

  it('lets every caller of dispose() and close() wait until the containers are gone', async () => {
    const own = await startTestSandbox({ instance: `${fixture.instance}-close`, idleTtlMs: 60_000 });
    const twice = (await own.sandbox.acquire('twice')) as DockerKernel;
    const first = twice.dispose();
    await twice.dispose(); // the second caller waits too
    await expect(docker.getContainer(twice.containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    await first;
    await own.sandbox.acquire('swept');
    const sweeping = own.sandbox.sweep(Date.now() + 120_000);
    await own.close(); // throws if a container or workspace of the instance is left
    expect(await sweeping).toBe(1);
  });

  it('reaps containers and workspaces an earlier run of the same instance left behind', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tally-orphans-'));
    const crashed = await startTestSandbox({ instance: `${fixture.instance}-orphans`, workspaceRoot: root });
    const orphan = (await crashed.sandbox.acquire('left')) as DockerKernel;
    expect(await containersOf(crashed.instance)).toHaveLength(1);
    // No close(): the process "crashed". The next start of the same instance cleans up.
    const restarted = await startTestSandbox({ instance: crashed.instance, workspaceRoot: root });
    expect(await containersOf(crashed.instance)).toHaveLength(0);
    expect(existsSync(orphan.workspacePath)).toBe(false);
    await restarted.close();
    await rm(root, { recursive: true, force: true });
  });

  it('disposes a workspace nested too deep for fs.rm, and a new start of the instance reaps one', async () => {
    // 24 nested folders of 250 characters: past PATH_MAX, where fs.rm fails with ENAMETOOLONG.
    const nest =
      'import os\nos.mkdir("nest"); os.chdir("nest")\nfor _ in range(24):\n    os.mkdir("a" * 250); os.chdir("a" * 250)\nopen("leaf", "w").write("x")\nos.chdir("/workspace")';
    const root = await mkdtemp(join(tmpdir(), 'tally-deep-'));
    const crashed = await startTestSandbox({ instance: `${fixture.instance}-deep`, workspaceRoot: root });
    const disposed = (await crashed.sandbox.acquire('disposed')) as DockerKernel;
    expect((await disposed.run(nest)).error).toBeUndefined();
    await disposed.dispose();
    expect(existsSync(disposed.workspacePath)).toBe(false);
    await expect(docker.getContainer(disposed.containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
    const left = (await crashed.sandbox.acquire('left')) as DockerKernel;
    expect((await left.run(nest)).error).toBeUndefined();
    // No close(): the process "crashed". The next start of the same instance still starts and cleans up.
    const restarted = await startTestSandbox({ instance: crashed.instance, workspaceRoot: root });
    expect(await containersOf(crashed.instance)).toHaveLength(0);
    expect(existsSync(left.workspacePath)).toBe(false);
    expect((await (await restarted.sandbox.acquire('after')).run('1 + 1')).result?.text).toBe('2');
    await restarted.close();
    await rm(root, { recursive: true, force: true });
  });

  it('says which setting to change when no engine answers', async () => {
    const start = DockerSandbox.start({
      docker: new Docker({ socketPath: '/nonexistent/docker.sock' }),
      image: 'anything',
      instance: 'unreachable',
      workspaceRoot: join(tmpdir(), 'never-created'),
      limits: { memoryMb: 256, cpus: 1, pidsLimit: 64, tmpMb: 16 },
      poolSize: 0,
      idleTtlMs: 1000,
      cellTimeoutMs: 1000,
      outputLimitBytes: 1024,
      logger: createLogger({ level: 'silent' }),
    });
    await expect(start).rejects.toBeInstanceOf(SandboxEngineUnavailableError);
    await expect(start).rejects.toThrow(/DOCKER_HOST/);
  });

  it('says how to build the image when it is missing', async () => {
    const start = startTestSandbox({ image: 'tally-sandbox:not-built' });
    await expect(start).rejects.toBeInstanceOf(SandboxImageMissingError);
    await expect(start).rejects.toThrow(/npm run setup.*TALLY_SANDBOX_IMAGE/);
  });
});
