/**
 * Redis behind Sentinel, from TALLY_REDIS_SENTINELS (host:port of each Sentinel), TALLY_REDIS_MASTER_NAME and the
 * credentials of the data nodes and of the Sentinels. config.ts calls it with the environment it checked; without
 * Sentinels there are no settings (REDIS_URL, or the SQLite file, is the store).
 */
import type { RedisSentinelSettings } from './config-types.js';

/** The TALLY_REDIS_* variables as the environment schema checked them. */
export interface RedisSentinelVariables {
  TALLY_REDIS_SENTINELS?: string | undefined;
  TALLY_REDIS_MASTER_NAME: string;
  TALLY_REDIS_USERNAME?: string | undefined;
  TALLY_REDIS_PASSWORD?: string | undefined;
  TALLY_REDIS_SENTINEL_PASSWORD?: string | undefined;
}

export function redisSentinel(e: RedisSentinelVariables): RedisSentinelSettings | undefined {
  if (!e.TALLY_REDIS_SENTINELS) return undefined;
  const sentinels = e.TALLY_REDIS_SENTINELS.split(',').map((entry) => {
    const at = entry.lastIndexOf(':');
    return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
  });
  return {
    sentinels,
    masterName: e.TALLY_REDIS_MASTER_NAME,
    ...(e.TALLY_REDIS_USERNAME ? { username: e.TALLY_REDIS_USERNAME } : {}),
    ...(e.TALLY_REDIS_PASSWORD ? { password: e.TALLY_REDIS_PASSWORD } : {}),
    ...(e.TALLY_REDIS_SENTINEL_PASSWORD ? { sentinelPassword: e.TALLY_REDIS_SENTINEL_PASSWORD } : {}),
  };
}
