/**
 * A DockerSandbox for one test file, on its own instance name and workspace root, that always
 * cleans up and then checks nothing leaked (no container, no workspace folder or disk image, no
 * mounted workspace filesystem).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DockerSandbox, type DockerSandboxOptions } from '../../sandbox/docker-sandbox.js';
import { createLogger } from '../../src/base/logger.js';
import { containersOf, docker, requireSandboxImage } from './docker.js';

export interface TestSandbox {
  sandbox: DockerSandbox;
  instance: string;
  workspaceRoot: string;
  /** Closes the sandbox and throws if any container or workspace of this instance is left. */
  close(): Promise<void>;
}

export type TestSandboxOptions = Partial<Omit<DockerSandboxOptions, 'docker' | 'logger' | 'limits'>> & {
  limits?: Partial<DockerSandboxOptions['limits']>;
};

export async function startTestSandbox(options: TestSandboxOptions = {}): Promise<TestSandbox> {
  const image = await requireSandboxImage();
  const instance = options.instance ?? `test-${randomBytes(4).toString('hex')}`;
  const base = await mkdtemp(join(tmpdir(), 'tally-test-'));
  const workspaceRoot = options.workspaceRoot ?? join(base, 'workspaces');
  const { limits, ...rest } = options;
  const sandbox = await DockerSandbox.start({
    docker,
    image,
    instance,
    runtime: process.env.TALLY_SANDBOX_RUNTIME ?? 'auto', // the product's default: runsc where the engine has it
    workspaceRoot,
    poolSize: 0,
    idleTtlMs: 10 * 60_000,
    cellTimeoutMs: 30_000,
    outputLimitBytes: 64 * 1024,
    logger: createLogger({ level: 'error' }),
    ...rest,
    limits: { memoryMb: 512, cpus: 1, pidsLimit: 128, tmpMb: 128, ...limits },
  });
  return {
    sandbox,
    instance,
    workspaceRoot,
    async close() {
      await sandbox.close();
      const left = await containersOf(instance);
      const folders = await readdir(workspaceRoot).catch(() => []);
      const mounts = await mountsUnder(workspaceRoot);
      // A mounted workspace stays: removing it would empty the image and fail on the busy mount point.
      if (mounts.length === 0) await rm(base, { recursive: true, force: true });
      if (left.length > 0 || folders.length > 0 || mounts.length > 0) {
        throw new Error(
          `leaked ${left.length} containers, ${folders.length} workspaces and ${mounts.length} mounts of ${instance}`,
        );
      }
    },
  };
}

/** Mount points below a folder, as this process sees them (none where there is no /proc). */
async function mountsUnder(root: string): Promise<string[]> {
  const table = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  return table
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((point) => point.startsWith(`${root}/`));
}
