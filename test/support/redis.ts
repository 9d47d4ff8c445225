/**
 * Tests that need Redis use a real server (scripts/ensure-redis.sh provides one). Each test file
 * gets its own key prefix, so files can run in parallel on one server, and removes its keys after.
 * A missing server is a failure that says what to do, never a skip.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from '@redis/client';

/** TALLY_TEST_REDIS_URL, or the local server ensure-redis.sh starts. */
export function redisTestUrl(): string {
  return process.env.TALLY_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
}

const newClient = () =>
  createClient({ url: redisTestUrl(), socket: { connectTimeout: 3_000, reconnectStrategy: false } });

export type TestRedisClient = ReturnType<typeof newClient>;

/** A client for assertions and clean-up; throws with what to do when no Redis answers. */
export async function connectTestRedis(): Promise<TestRedisClient> {
  const client = newClient();
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch (error) {
    client.destroy();
    throw new Error(
      `No Redis answers at ${redisTestUrl()} (${String(error)}). Run 'npm run test:all', which starts one, ` +
        `or 'bash scripts/ensure-redis.sh', or set TALLY_TEST_REDIS_URL.`,
    );
  }
}

export interface RedisTestSpace {
  url: string;
  /** Give this to the store (StoreOptions.keyPrefix); every key of the test file starts with it. */
  keyPrefix: string;
  /** A client on the same server, for looking at keys directly. */
  client: TestRedisClient;
  /** The keys under this prefix, sorted. */
  keys(): Promise<string[]>;
  /** Deletes every key under the prefix and disconnects. */
  cleanup(): Promise<void>;
}

export async function createRedisTestSpace(label: string): Promise<RedisTestSpace> {
  const client = await connectTestRedis();
  const keyPrefix = `tally-test:${label}:${randomBytes(4).toString('hex')}`;
  const keys = async () => {
    const found: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${keyPrefix}:*`, COUNT: 500 })) found.push(...batch);
    return found.sort();
  };
  return {
    url: redisTestUrl(),
    keyPrefix,
    client,
    keys,
    async cleanup() {
      const found = await keys();
      if (found.length > 0) await client.unlink(found);
      client.destroy();
    },
  };
}
