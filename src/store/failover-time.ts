/**
 * A thread lock must outlive a Redis failover: while the master is gone nobody can renew it, and one that expires on
 * the promoted replica lets a second replica take the thread while the first still works on it (its answer is then
 * posted twice). A failover takes the time before the master is called down (the Sentinels'
 * `down-after-milliseconds`, a Cluster's `cluster-node-timeout`) and then an election and the client's move to the
 * new master (5.4 s in all behind Sentinel with 1 s, 2.5 s in a Cluster with 1 s, on the test machine), so a service
 * warns at start-up when TALLY_LOCK_TTL_MS is not well above it. In a Cluster a call waits CLUSTER_FAILOVER_WAIT_MS
 * for the promotion: that is checked too.
 */
import { createClient } from '@redis/client';
import type { RedisClusterSettings, RedisSentinelSettings } from '../base/config-types.js';
import type { Logger } from '../base/logger.js';
import { CLUSTER_FAILOVER_WAIT_MS } from './redis-cluster-failover.js';

/** What a failover takes beyond `down-after-milliseconds`, with room: the election and the move to the new master. */
export const FAILOVER_BEYOND_DOWN_AFTER_MS = 10_000;

/** The Sentinels' `down-after-milliseconds` for the master, from the first that answers; undefined when none does. */
export async function sentinelDownAfterMs(settings: RedisSentinelSettings): Promise<number | undefined> {
  for (const { host, port } of settings.sentinels) {
    const client = createClient({
      socket: { host, port, connectTimeout: 2_000, reconnectStrategy: false },
      ...(settings.sentinelPassword ? { password: settings.sentinelPassword } : {}),
    });
    client.on('error', () => {});
    try {
      await client.connect();
      const fields = (await client.sendCommand(['SENTINEL', 'MASTER', settings.masterName])) as string[];
      const at = fields.indexOf('down-after-milliseconds');
      if (at >= 0) return Number(fields[at + 1]);
    } catch {
      // the next Sentinel may answer
    } finally {
      if (client.isOpen) client.destroy();
    }
  }
  return undefined;
}

/** A Cluster's `cluster-node-timeout`, from the first node that answers; undefined when none does. */
export async function clusterNodeTimeoutMs(settings: RedisClusterSettings): Promise<number | undefined> {
  for (const { host, port } of settings.nodes) {
    const client = createClient({
      socket: { host, port, connectTimeout: 2_000, reconnectStrategy: false },
      ...(settings.username ? { username: settings.username } : {}),
      ...(settings.password ? { password: settings.password } : {}),
    });
    client.on('error', () => {});
    try {
      await client.connect();
      const reply = (await client.sendCommand(['CONFIG', 'GET', 'cluster-node-timeout'])) as string[];
      if (reply.length === 2) return Number(reply[1]);
    } catch {
      // the next node may answer (or CONFIG is not allowed to this user: nothing to say then)
    } finally {
      if (client.isOpen) client.destroy();
    }
  }
  return undefined;
}

/** Warns when thread locks of `lockTtlMs` could expire during a failover of these Sentinels or this Cluster. */
export async function warnIfLocksShorterThanFailover(
  target: { sentinel: RedisSentinelSettings } | { cluster: RedisClusterSettings },
  lockTtlMs: number,
  logger: Logger,
): Promise<void> {
  const inCluster = 'cluster' in target;
  const downAfterMs = inCluster
    ? await clusterNodeTimeoutMs(target.cluster)
    : await sentinelDownAfterMs(target.sentinel);
  if (downAfterMs === undefined) return;
  const failoverMs = downAfterMs + FAILOVER_BEYOND_DOWN_AFTER_MS;
  const who = inCluster ? 'the cluster waits' : 'the Sentinels wait';
  const one = inCluster ? 'it starts one' : 'they start one';
  const setting = inCluster ? 'cluster-node-timeout' : 'down-after-milliseconds';
  if (lockTtlMs < failoverMs) {
    logger.warn(
      { variable: 'TALLY_LOCK_TTL_MS', lockTtlMs, downAfterMs },
      `thread locks (TALLY_LOCK_TTL_MS=${lockTtlMs}) can expire during a Redis failover (${who} ${downAfterMs} ms before ${one}): a thread may then be worked on twice. Set TALLY_LOCK_TTL_MS to at least ${failoverMs}`,
    );
  }
  if (inCluster && CLUSTER_FAILOVER_WAIT_MS < failoverMs) {
    logger.warn(
      { downAfterMs, waitMs: CLUSTER_FAILOVER_WAIT_MS },
      `store calls wait ${CLUSTER_FAILOVER_WAIT_MS} ms for a Redis Cluster failover, but the cluster waits ${downAfterMs} ms before it starts one: calls will fail meanwhile. Set the cluster's ${setting} to at most ${CLUSTER_FAILOVER_WAIT_MS - FAILOVER_BEYOND_DOWN_AFTER_MS}`,
    );
  }
}
