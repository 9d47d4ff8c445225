/**
 * How long a store call waits for a Redis Cluster to fail over when its master is down, and how often it looks.
 * The cluster promotes a replica once the master has been unreachable for `cluster-node-timeout` (15 s by default)
 * plus an election of about a second: set that timeout below this wait, or calls fail (StoreUnavailableError)
 * before the promotion.
 */
export const CLUSTER_FAILOVER_WAIT_MS = 30_000;
export const RETRY_EVERY_MS = 250;
