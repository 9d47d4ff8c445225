/**
 * Removes what another instance left on this engine when its process died and did not come back: its containers
 * made before `before` (one made later belongs to the instance started again under the same name), and the
 * workspaces they used under its workspace folder: unmounted, their disk image and folder removed. Best effort:
 * whatever cannot be removed is logged and left. Returns how many containers were removed.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { Logger } from '../src/base/logger.js';
import { LABELS } from './container-spec.js';
import { LoopFilesystem } from './loop-filesystem.js';
import { removeTree } from './remove-tree.js';

export interface ReapInstanceOptions {
  docker: Docker;
  instance: string;
  /** The instance's folder of workspaces. */
  workspaceRoot: string;
  /** Containers made at or after this time (ms since the epoch) are left alone. */
  before: number;
  logger: Logger;
}

export async function reapInstance(options: ReapInstanceOptions): Promise<number> {
  const { docker, instance, workspaceRoot, before, logger } = options;
  const listed = await docker.listContainers({
    all: true,
    filters: { label: [`${LABELS.managed}=true`, `${LABELS.instance}=${instance}`] },
  });
  let removed = 0;
  for (const info of listed.filter((container) => container.Created * 1000 < before)) {
    const removing = await docker
      .getContainer(info.Id)
      .remove({ force: true })
      .then(
        () => true,
        (error: unknown) => {
          logger.warn({ err: error, id: info.Id, instance }, 'could not remove a dead replica’s container');
          return false;
        },
      );
    if (!removing) continue;
    removed += 1;
    for (const workspace of workspacesOf(info, workspaceRoot)) {
      await LoopFilesystem.unmountAt(workspace)
        .then(() => removeTree(workspace))
        .then(() => rm(`${workspace}.ext4`, { force: true }))
        .catch((error: unknown) =>
          logger.warn({ err: error, path: workspace, instance }, 'could not remove a dead replica’s workspace'),
        );
    }
  }
  return removed;
}

/** The workspace folders (`<root>/<id>`) a container's binds come from. */
function workspacesOf(info: Docker.ContainerInfo, root: string): string[] {
  const sources = (info.Mounts ?? []).map((mount) => mount.Source).filter((source) => source.startsWith(`${root}/`));
  return [...new Set(sources.map((source) => join(root, source.slice(root.length + 1).split('/')[0] ?? '')))];
}
