/**
 * Removes what an earlier run of this instance left behind: its containers, the mounts of its
 * workspaces, and the workspaces. Best effort: whatever cannot be removed is logged and left, and
 * start-up goes on (new kernels get new ids, so nothing collides).
 */
import { chmod, mkdir } from 'node:fs/promises';
import type Docker from 'dockerode';
import type { Logger } from '../src/base/logger.js';
import { LABELS } from './container-spec.js';
import { LoopFilesystem } from './loop-filesystem.js';
import { removeTree } from './remove-tree.js';

export interface ReapOptions {
  docker: Docker;
  instance: string;
  /** This instance's folder of workspaces; left empty and private to this user. */
  workspaceRoot: string;
  logger: Logger;
}

export async function reapOrphans(options: ReapOptions): Promise<void> {
  const { docker, instance, workspaceRoot, logger } = options;
  try {
    const orphans = await docker.listContainers({
      all: true,
      filters: { label: [`${LABELS.managed}=true`, `${LABELS.instance}=${instance}`] },
    });
    await Promise.all(
      orphans.map((info) =>
        docker
          .getContainer(info.Id)
          .remove({ force: true })
          .catch((error: unknown) => logger.warn({ err: error, id: info.Id }, 'could not remove orphaned container')),
      ),
    );
    if (orphans.length > 0) logger.info({ count: orphans.length }, 'removed orphaned sandbox containers');
  } catch (error) {
    logger.error({ err: error }, 'could not list orphaned sandbox containers');
  }
  // Each workspace may be a mounted filesystem: removing the tree must not descend into one.
  const unmounted = await LoopFilesystem.unmountAllUnder(workspaceRoot).then(
    () => true,
    (error: unknown) => {
      logger.error({ err: error, path: workspaceRoot }, 'could not unmount orphaned workspaces; left them');
      return false;
    },
  );
  if (unmounted) {
    await removeTree(workspaceRoot).catch((error: unknown) => {
      logger.error({ err: error, path: workspaceRoot }, 'could not remove orphaned workspaces');
    });
  }
  // Private to this user (see Workspace.create), even when the folder was there before.
  await mkdir(workspaceRoot, { recursive: true, mode: 0o700 });
  await chmod(workspaceRoot, 0o700);
}
