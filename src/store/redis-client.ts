/**
 * The node-redis client the Redis store connects, shared with the audit log on the same connection, and the
 * URL without its password for what the store says about it.
 */
import { createClient } from '@redis/client';

/** The node-redis client the store connects (also used by the audit log on the same connection). */
export type RedisClient = ReturnType<typeof newClient>;

/** A client that, before its first connection, gives up at once (the caller hears why), and after it retries for ever. */
export function newClient(url: string, connectTimeoutMs: number, everReady: () => boolean) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: (retries, cause) =>
        everReady() ? Math.min(2_000, 50 * 2 ** retries) + Math.random() * 100 : cause,
    },
  });
}

/** The URL with its password hidden, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable REDIS_URL)';
  }
}
