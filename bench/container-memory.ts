/**
 * A container's memory as `docker stats` shows it: usage minus the reclaimable page cache, with
 * the cgroup v1 or v2 field the engine reports.
 */
import type Docker from 'dockerode';

const MIB = 1024 * 1024;

export interface ContainerMemory {
  usageMib: number;
  rawUsageMib: number;
  /** The memory_stats.stats field subtracted from usage, e.g. `total_inactive_file` (cgroup v1). */
  cacheField: string;
  cacheMib: number;
  /** Anonymous memory (cgroup v1 total_rss, v2 anon), for context. */
  anonymousMib: number | undefined;
}

/** Which page-cache field to subtract, in the order the docker CLI prefers them. */
const CACHE_FIELDS = [
  { field: 'total_inactive_file', cgroup: 'v1' },
  { field: 'inactive_file', cgroup: 'v2' },
  { field: 'cache', cgroup: 'v1' },
] as const;

export async function containerMemory(docker: Docker, containerId: string): Promise<ContainerMemory> {
  const stats = await docker.getContainer(containerId).stats({ stream: false });
  const usage = stats.memory_stats.usage;
  if (typeof usage !== 'number') throw new Error(`docker stats reported no memory usage for ${containerId}`);
  const fields = (stats.memory_stats.stats ?? {}) as unknown as Record<string, number | undefined>;
  const found = CACHE_FIELDS.find(({ field }) => typeof fields[field] === 'number');
  const cache = found === undefined ? 0 : (fields[found.field] ?? 0);
  const anonymous = fields.total_rss ?? fields.anon;
  const round = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;
  return {
    usageMib: round(cache < usage ? usage - cache : usage),
    rawUsageMib: round(usage),
    cacheField: found === undefined ? 'none' : `${found.field} (cgroup ${found.cgroup})`,
    cacheMib: round(cache),
    anonymousMib: anonymous === undefined ? undefined : round(anonymous),
  };
}
