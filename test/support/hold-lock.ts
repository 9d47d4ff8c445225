/**
 * A process that takes a store lock and holds it until it is killed, for tests of locks whose
 * holder dies. Usage: `node --import tsx test/support/hold-lock.ts <redis-url|sqlite-path> <prefix> <lock> <ttlMs>`.
 * Prints `held` once it holds the lock.
 */

import { createLogger } from '../../src/base/logger.js';
import { createStore } from '../../src/store/create-store.js';

const [where = '', keyPrefix = 'tally', name = 'lock', ttlText = '2000'] = process.argv.slice(2);
const redis = where.startsWith('redis://');
const store = await createStore({
  ...(redis ? { redisUrl: where } : {}),
  sqlitePath: redis ? '/nonexistent/unused.db' : where,
  keyPrefix,
  logger: createLogger({ level: 'silent' }),
});
await store.withLock(
  name,
  () =>
    new Promise<never>(() => {
      process.stdout.write('held\n');
      setInterval(() => {}, 60_000); // keeps the process (and its lock renewals) alive until killed
    }),
  { ttlMs: Number(ttlText) },
);
