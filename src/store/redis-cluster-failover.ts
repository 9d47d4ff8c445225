/**
 * A store call while a Redis Cluster fails over: a call that was never carried out because its master is down is
 * sent again once the slots are learnt anew (node-redis relearns them only on MOVED, which a dead master never
 * sends), every RETRY_EVERY_MS, until it goes through or CLUSTER_FAILOVER_WAIT_MS has passed. The start and the
 * end of a failover are logged once. The cluster promotes a replica once the master has been unreachable for
 * `cluster-node-timeout` (15 s by default) plus an election of about a second: set that timeout below this wait, or
 * calls fail (StoreUnavailableError) before the promotion. Outside a Cluster nothing is retried.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../base/logger.js';
import type { RedisConnection } from './redis-client.js';
import { reasonOf } from './redis-errors.js';

export const CLUSTER_FAILOVER_WAIT_MS = 30_000;
export const RETRY_EVERY_MS = 250;

export class ClusterFailover {
  /** Whether calls are waiting for a promotion now. */
  private waiting = false;

  constructor(
    private readonly client: RedisConnection,
    private readonly logger: Logger,
    /** Whether the store was closed meanwhile (then nothing waits). */
    private readonly closed: () => boolean,
  ) {}

  /** Runs `operation`, again while its master is being replaced; throws its last error otherwise. */
  async run<T>(operation: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + CLUSTER_FAILOVER_WAIT_MS;
    for (;;) {
      try {
        const result = await operation();
        if (this.waiting) {
          this.waiting = false;
          this.logger.warn({ redis: this.client.location }, 'redis cluster master changed (failover)');
        }
        return result;
      } catch (error) {
        if (!this.client.retriesAfter(error) || this.closed() || Date.now() >= deadline) throw error;
        if (!this.waiting) {
          this.waiting = true;
          this.logger.warn(
            { redis: this.client.location, reason: reasonOf(error) },
            'a redis cluster master does not answer: waiting for the cluster to promote its replica',
          );
        }
        await sleep(RETRY_EVERY_MS);
        await this.client.relearnSlots().catch(() => {});
      }
    }
  }
}
