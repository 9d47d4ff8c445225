/**
 * A thread lock must outlive a Sentinel failover: while the master is gone nobody can renew it, and one that
 * expires on the promoted replica lets a second replica take the thread while the first still works on it (its
 * answer is then posted twice). A failover takes the Sentinels' `down-after-milliseconds` and then an election and
 * the client's move to the new master (5.4 s in all with 1 s on the test machine), so a service warns at start-up
 * when TALLY_LOCK_TTL_MS is not well above it.
 */
import { createClient } from '@redis/client';
import type { RedisSentinelSettings } from '../base/config-types.js';
import type { Logger } from '../base/logger.js';

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

/** Warns when thread locks of `lockTtlMs` could expire during a failover of these Sentinels. */
export async function warnIfLocksShorterThanFailover(
  settings: RedisSentinelSettings,
  lockTtlMs: number,
  logger: Logger,
): Promise<void> {
  const downAfterMs = await sentinelDownAfterMs(settings);
  if (downAfterMs === undefined || lockTtlMs >= downAfterMs + FAILOVER_BEYOND_DOWN_AFTER_MS) return;
  logger.warn(
    { variable: 'TALLY_LOCK_TTL_MS', lockTtlMs, downAfterMs },
    `thread locks (TALLY_LOCK_TTL_MS=${lockTtlMs}) can expire during a Redis failover (the Sentinels wait ${downAfterMs} ms before they start one): a thread may then be worked on twice. Set TALLY_LOCK_TTL_MS to at least ${downAfterMs + FAILOVER_BEYOND_DOWN_AFTER_MS}`,
  );
}
