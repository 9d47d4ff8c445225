/**
 * Redis behind Sentinel (TALLY_REDIS_SENTINELS: host:port of each Sentinel, TALLY_REDIS_MASTER_NAME) or a Redis
 * Cluster (TALLY_REDIS_CLUSTER: host:port of some of its nodes), with the credentials of the data nodes and of the
 * Sentinels. config.ts calls these with the environment it checked; without either there are no settings (REDIS_URL,
 * or the SQLite file, is the store).
 */
import type { RedisClusterSettings, RedisSentinelSettings } from './config-types.js';

/** The variables that each name a whole Redis deployment: one of them at most. */
export const REDIS_FORMS = ['REDIS_URL', 'TALLY_REDIS_SENTINELS', 'TALLY_REDIS_CLUSTER'] as const;

/** The TALLY_REDIS_* variables as the environment schema checked them. */
export interface RedisVariables {
  TALLY_REDIS_SENTINELS?: string | undefined;
  TALLY_REDIS_CLUSTER?: string | undefined;
  TALLY_REDIS_MASTER_NAME: string;
  TALLY_REDIS_USERNAME?: string | undefined;
  TALLY_REDIS_PASSWORD?: string | undefined;
  TALLY_REDIS_SENTINEL_PASSWORD?: string | undefined;
}

export function redisSentinel(e: RedisVariables): RedisSentinelSettings | undefined {
  if (!e.TALLY_REDIS_SENTINELS) return undefined;
  return {
    sentinels: hostPorts(e.TALLY_REDIS_SENTINELS),
    masterName: e.TALLY_REDIS_MASTER_NAME,
    ...credentials(e),
    ...(e.TALLY_REDIS_SENTINEL_PASSWORD ? { sentinelPassword: e.TALLY_REDIS_SENTINEL_PASSWORD } : {}),
  };
}

export function redisCluster(e: RedisVariables): RedisClusterSettings | undefined {
  if (!e.TALLY_REDIS_CLUSTER) return undefined;
  return { nodes: hostPorts(e.TALLY_REDIS_CLUSTER), ...credentials(e) };
}

function credentials(e: RedisVariables): { username?: string; password?: string } {
  return {
    ...(e.TALLY_REDIS_USERNAME ? { username: e.TALLY_REDIS_USERNAME } : {}),
    ...(e.TALLY_REDIS_PASSWORD ? { password: e.TALLY_REDIS_PASSWORD } : {}),
  };
}

/** `host:port,host:port`, as the schema checked it. */
function hostPorts(list: string): Array<{ host: string; port: number }> {
  return list.split(',').map((entry) => {
    const at = entry.lastIndexOf(':');
    return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
  });
}
