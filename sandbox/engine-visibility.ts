/**
 * Whether the Docker engine sees this process's folders at the same paths. Kernels mount their
 * workspace by its path on the engine's host; when tally runs in a container (or the engine on
 * another machine), a folder it made is only there when TALLY_HOME is mounted at the same path on
 * both sides, and a filesystem it mounts there reaches the host only with shared propagation.
 * Otherwise the engine would make an empty folder of that name and the kernel would never see the
 * files tally writes for it.
 *
 * The check creates (and removes, never starts) a container that bind-mounts a folder with a fresh
 * random name: the engine refuses a bind mount whose source does not exist on its side.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { LABELS } from './container-spec.js';

const MISSING_SOURCE = /bind source path does not exist|no such file or directory/i;

export interface VisibilityProbe {
  docker: Docker;
  /** An image the engine has (the sandbox image): the container is created, never started. */
  image: string;
  /** Labels the probe container as this instance's, so start-up reaps it if this process dies meanwhile. */
  instance: string;
}

/** True when a new folder made in `parent` is visible to the engine at the same path. */
export async function engineSeesFolder(probe: VisibilityProbe, parent: string): Promise<boolean> {
  const folder = join(parent, `.engine-probe-${randomBytes(6).toString('hex')}`);
  await mkdir(folder, { mode: 0o700 });
  try {
    const container = await probe.docker
      .createContainer({
        Image: probe.image,
        Cmd: ['true'],
        Labels: { [LABELS.managed]: 'true', [LABELS.instance]: probe.instance },
        NetworkDisabled: true,
        HostConfig: {
          NetworkMode: 'none',
          Mounts: [{ Type: 'bind', Source: folder, Target: '/probe', ReadOnly: true }],
        },
      })
      .catch((error: unknown) => {
        if (MISSING_SOURCE.test(String((error as Error).message))) return undefined;
        throw error;
      });
    if (container === undefined) return false;
    await container.remove({ force: true });
    return true;
  } finally {
    await rmdir(folder).catch(() => {});
  }
}
