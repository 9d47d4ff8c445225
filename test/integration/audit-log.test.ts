/**
 * The audit log, run against both implementations: a table on a real SQLite file and a stream on a
 * real Redis (see test/support/redis.ts) and on a real Redis Cluster this file starts (its three keys
 * under one hash tag, as the store names them there). Each test works on data of its own; tampering goes straight
 * to the file or the keys, the way someone with access to the store would; concurrency uses several
 * connections in this process and several processes.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppError, StoreUnavailableError } from '../../src/base/errors.js';
import type { AuditLog, StoredAuditRecord } from '../../src/store/audit-log.js';
import { GENESIS } from '../../src/store/audit-log.js';
import { RedisAuditLog } from '../../src/store/redis-audit-log.js';
import { RedisConnection } from '../../src/store/redis-client.js';
import { SqliteAuditLog } from '../../src/store/sqlite-audit-log.js';
import { cleanUp } from '../support/clean-up.js';
import { createRedisTestSpace, type RedisTestSpace } from '../support/redis.js';
import { type RedisClusterSet, startRedisCluster } from '../support/redis-processes.js';

const ROOT = join(import.meta.dirname, '..', '..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One test's data: log instances on their own connections, and direct access for tampering. */
interface Space {
  /** A new log on a new connection to the same data (another process or replica). */
  open(): Promise<AuditLog>;
  /** Rewrites one stored record's text, leaving its hash as it was. */
  alter(id: string, text: string): Promise<void>;
  /** Deletes one stored record, touching nothing else. */
  remove(id: string): Promise<void>;
  /** Arguments for the child process in `appendFromProcesses`. */
  childArguments: string[];
}

interface Backend {
  name: string;
  setUp(): Promise<void>;
  space(label: string): Space;
  tearDown(): Promise<void>;
}

function sqliteBackend(): Backend {
  let directory = '';
  const connections: Database.Database[] = [];
  const connect = (path: string) => {
    const database = new Database(path);
    database.pragma('journal_mode = WAL');
    database.pragma('busy_timeout = 5000');
    connections.push(database);
    return database;
  };
  return {
    name: 'SQLite file',
    async setUp() {
      directory = mkdtempSync(join(tmpdir(), 'tally-audit-'));
    },
    space(label) {
      mkdirSync(join(directory, label));
      const path = join(directory, label, 'state.db');
      const tamper = connect(path);
      new SqliteAuditLog(tamper); // creates the tables, so tampering can start at once
      return {
        open: async () => new SqliteAuditLog(connect(path)),
        async alter(id, text) {
          expect(tamper.prepare('UPDATE audit SET record = ? WHERE seq = ?').run(text, Number(id)).changes).toBe(1);
        },
        async remove(id) {
          expect(tamper.prepare('DELETE FROM audit WHERE seq = ?').run(Number(id)).changes).toBe(1);
        },
        childArguments: ['sqlite', path, ''],
      };
    },
    async tearDown() {
      await cleanUp(
        () => {
          for (const database of connections) database.close();
        },
        () => rmSync(directory, { recursive: true, force: true }),
      );
    },
  };
}

function redisBackend(): Backend {
  let redis: RedisTestSpace | undefined;
  const clients: RedisConnection[] = [];
  const test = () => {
    if (!redis) throw new Error('set up first');
    return redis;
  };
  return {
    name: 'Redis',
    async setUp() {
      redis = await createRedisTestSpace('audit-log');
    },
    space(label) {
      const prefix = `${test().keyPrefix}:${label}`;
      const stream = `${prefix}:audit`;
      return {
        async open() {
          const client = RedisConnection.open({ url: test().url }, 3_000, () => true);
          clients.push(client);
          await client.connect();
          return new RedisAuditLog(client, prefix, (operation) => operation());
        },
        // A stream entry cannot be edited: copy the stream with the one field changed, then swap it in.
        async alter(id, text) {
          const { client } = test();
          const copy = `${stream}:tampered`;
          let found = false;
          for (const entry of await client.xRange(stream, '-', '+')) {
            const fields = { ...entry.message };
            if (entry.id === id) {
              fields.record = text;
              found = true;
            }
            await client.xAdd(copy, entry.id, fields);
          }
          expect(found).toBe(true);
          await client.rename(copy, stream);
        },
        async remove(id) {
          expect(await test().client.xDel(stream, id)).toBe(1);
        },
        childArguments: ['redis', test().url, prefix],
      };
    },
    async tearDown() {
      await cleanUp(
        async () => {
          for (const client of clients) if (client.isOpen) await client.close();
        },
        () => redis?.cleanup(),
      );
    },
  };
}

function redisClusterBackend(): Backend {
  let cluster: RedisClusterSet | undefined;
  let tamper: RedisConnection | undefined;
  const clients: RedisConnection[] = [];
  const connect = async () => {
    if (!cluster) throw new Error('set up first');
    const client = RedisConnection.open({ cluster: cluster.settings }, 3_000, () => true);
    clients.push(client);
    await client.connect();
    return client;
  };
  return {
    name: 'Redis Cluster',
    async setUp() {
      cluster = await startRedisCluster();
      tamper = await connect();
    },
    space(label) {
      const prefix = `{audit-log:${label}}`; // one tag: the stream, its head and its anchor share a slot
      const stream = `${prefix}:audit`;
      const send = (args: string[]) => (tamper as RedisConnection).send(args, stream);
      return {
        async open() {
          return new RedisAuditLog(await connect(), prefix, (operation) => operation());
        },
        async alter(id, text) {
          const copy = `${stream}:tampered`;
          let found = false;
          for (const entry of await (tamper as RedisConnection).xRange(stream, '-', '+', 10_000)) {
            const fields = { ...entry.message };
            if (entry.id === id) {
              fields.record = text;
              found = true;
            }
            await send([
              'XADD',
              copy,
              entry.id,
              ...Object.entries(fields).flatMap(([name, value]) => [name, `${value}`]),
            ]);
          }
          expect(found).toBe(true);
          await send(['RENAME', copy, stream]);
        },
        async remove(id) {
          expect(await send(['XDEL', stream, id])).toBe(1);
        },
        childArguments: ['cluster', JSON.stringify(cluster?.settings), prefix],
      };
    },
    async tearDown() {
      await cleanUp(
        async () => {
          for (const client of clients) if (client.isOpen) await client.close();
        },
        () => cluster?.close(),
      );
    },
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function readAll(log: AuditLog): Promise<StoredAuditRecord[]> {
  const all: StoredAuditRecord[] = [];
  for (;;) {
    const batch = await log.read({ ...(all.length > 0 ? { afterId: all.at(-1)?.id ?? '' } : {}), limit: 50 });
    all.push(...batch);
    if (batch.length < 50) return all;
  }
}

async function appendAll(log: AuditLog, times: number[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, atMs] of times.entries()) ids.push(await log.append(JSON.stringify({ index, atMs }), atMs));
  return ids;
}

/** The code each child process runs: opens its own log, waits for `go`, appends `count` records at once. */
const CHILD = `
const [kind, where, prefix, label, countText] = process.argv.slice(1);
let log;
let close;
if (kind === 'sqlite') {
  const { default: Database } = await import('better-sqlite3');
  const { SqliteAuditLog } = await import('./src/store/sqlite-audit-log.ts');
  const database = new Database(where);
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 5000');
  log = new SqliteAuditLog(database);
  close = async () => database.close();
} else if (kind === 'cluster') {
  const { RedisConnection } = await import('./src/store/redis-client.ts');
  const { RedisAuditLog } = await import('./src/store/redis-audit-log.ts');
  const client = RedisConnection.open({ cluster: JSON.parse(where) }, 3000, () => true);
  await client.connect();
  log = new RedisAuditLog(client, prefix, (operation) => operation());
  close = () => client.close();
} else {
  const { createClient } = await import('@redis/client');
  const { RedisAuditLog } = await import('./src/store/redis-audit-log.ts');
  const client = createClient({ url: where });
  await client.connect();
  log = new RedisAuditLog(client, prefix, (operation) => operation());
  close = () => client.close();
}
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.destroy();
const appends = Array.from({ length: Number(countText) }, (_, index) =>
  log.append(JSON.stringify({ from: label, index }), Date.now()),
);
const ids = await Promise.all(appends);
process.stdout.write(JSON.stringify(ids) + '\\n');
await close();
`;

/**
 * Starts `processes` children on the same data, lets them append `perProcess` records each at the
 * same moment while `meanwhile` runs here, and returns every id they were given.
 */
async function appendFromProcesses(
  space: Space,
  processes: number,
  perProcess: number,
  meanwhile: (done: () => boolean) => Promise<void>,
): Promise<string[]> {
  const children = Array.from({ length: processes }, (_, index) =>
    spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        CHILD,
        ...space.childArguments,
        `child-${index}`,
        `${perProcess}`,
      ],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
    ),
  );
  try {
    const outputs = children.map((child) => {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { lines, exited };
    });
    for (const { lines } of outputs) expect((await lines.next()).value).toBe('ready');
    for (const child of children) child.stdin.write('go\n');
    let finished = 0;
    const results = Promise.all(
      outputs.map(async ({ lines, exited }) => {
        const ids = JSON.parse(String((await lines.next()).value)) as string[];
        expect(await exited).toBe(0);
        finished += 1;
        return ids;
      }),
    );
    await meanwhile(() => finished === processes);
    return (await results).flat();
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}

describe.each([sqliteBackend(), redisBackend(), redisClusterBackend()])('audit log on $name', (backend) => {
  beforeAll(() => backend.setUp());
  afterAll(() => backend.tearDown());

  it('reads records back in order with their ids, times and chain links', async () => {
    const space = backend.space('order');
    const log = await space.open();
    const times = [1_000, 2_000, 1_500, 3_000, 4_000];
    const ids = await appendAll(log, times);
    expect(new Set(ids).size).toBe(5);

    const records = await readAll(log);
    expect(records.map((record) => record.id)).toEqual(ids);
    expect(records.map((record) => record.atMs)).toEqual(times);
    expect(records.map((record) => JSON.parse(record.text).index)).toEqual([0, 1, 2, 3, 4]);
    records.forEach((record, index) => {
      expect(record.prev).toBe(index === 0 ? GENESIS : records[index - 1]?.hash);
      expect(record.hash).toBe(sha256(`${record.prev}\n${record.text}`));
    });

    expect((await log.read({ afterId: ids[1] ?? '', limit: 2 })).map((record) => record.id)).toEqual(ids.slice(2, 4));
    expect(await log.read({ afterId: ids[4] ?? '' })).toEqual([]);
    expect(await log.read({ limit: 0 })).toEqual([]);
    // A restart (a new instance on a new connection) reads the same trail and chains on to it.
    const restarted = await space.open();
    expect(await restarted.read()).toEqual(records);
    const next = await restarted.append('{"after":"restart"}', 5_000);
    expect((await log.read({ afterId: ids[4] ?? '' }))[0]).toMatchObject({ id: next, prev: records[4]?.hash });
    expect(await log.verify()).toEqual({ ok: true, records: 6 });
  });

  it('verifies an empty trail', async () => {
    const log = await backend.space('empty').open();
    expect(await log.verify()).toEqual({ ok: true, records: 0 });
    expect(await log.expire(Number.MAX_SAFE_INTEGER, 10)).toBe(0);
  });

  it('names a record whose stored text was altered', async () => {
    const space = backend.space('altered');
    const log = await space.open();
    const ids = await appendAll(log, [1, 2, 3, 4, 5]);
    expect(await log.verify()).toEqual({ ok: true, records: 5 });

    await space.alter(ids[2] ?? '', '{"index":2,"atMs":3,"rows":0}');
    expect(await log.verify()).toEqual({
      ok: false,
      records: 2,
      brokenAt: ids[2],
      problem: `record ${ids[2]}: its content does not match its hash (altered)`,
    });
  });

  it('names the record after one removed from the middle', async () => {
    const space = backend.space('removed');
    const log = await space.open();
    const ids = await appendAll(log, [1, 2, 3, 4, 5]);
    await space.remove(ids[2] ?? '');
    expect(await log.verify()).toEqual({
      ok: false,
      records: 2,
      brokenAt: ids[3],
      problem: `record ${ids[3]}: does not follow record ${ids[1]} (a record before it was removed or altered)`,
    });
  });

  it('finds the first record removed', async () => {
    const space = backend.space('first-removed');
    const log = await space.open();
    const ids = await appendAll(log, [1, 2, 3]);
    await space.remove(ids[0] ?? '');
    expect(await log.verify()).toMatchObject({ ok: false, records: 0, brokenAt: ids[1] });
  });

  it('finds the last record removed, which no later record points back to', async () => {
    const space = backend.space('last-removed');
    const log = await space.open();
    const ids = await appendAll(log, [1, 2, 3]);
    await space.remove(ids[2] ?? '');
    expect(await log.verify()).toEqual({
      ok: false,
      records: 2,
      brokenAt: ids[1],
      problem: `record ${ids[1]}: the trail ends here, before the last record appended (records after it were removed)`,
    });
  });

  it('finds every record removed', async () => {
    const space = backend.space('all-removed');
    const log = await space.open();
    for (const id of await appendAll(log, [1, 2])) await space.remove(id);
    expect(await log.verify()).toEqual({
      ok: false,
      records: 0,
      brokenAt: 'start',
      problem: 'no record is left, yet not all of them expired (records were removed)',
    });
  });

  it('expires only old records from the head, within the limit, and the chain still verifies', async () => {
    const space = backend.space('expire');
    const log = await space.open();
    // The fourth record is old, but it comes after a new one: expiry stops at the first new record.
    const ids = await appendAll(log, [100, 200, 300, 900, 150, 1_000]);

    expect(await log.expire(500, 2)).toBe(2);
    expect((await readAll(log)).map((record) => record.id)).toEqual(ids.slice(2));
    expect(await log.verify()).toEqual({ ok: true, records: 4 });

    expect(await log.expire(500, 10)).toBe(1);
    expect(await log.expire(500, 10)).toBe(0);
    expect((await readAll(log)).map((record) => record.id)).toEqual(ids.slice(3));
    expect(await log.verify()).toEqual({ ok: true, records: 3 });

    // Appends after an expiry chain on, also from another instance.
    const other = await space.open();
    await other.append('{"late":true}', 2_000);
    expect(await log.verify()).toEqual({ ok: true, records: 4 });
  });

  it('keeps the chain when every record expired, and new ones follow the anchor', async () => {
    const space = backend.space('expire-all');
    const log = await space.open();
    const ids = await appendAll(log, [1, 2, 3]);
    const last = (await readAll(log)).at(-1);
    expect(await log.expire(10, 100)).toBe(3);
    expect(await log.read()).toEqual([]);
    expect(await log.verify()).toEqual({ ok: true, records: 0 });

    const next = await (await space.open()).append('{"after":"expiry"}', 20);
    expect(await log.read()).toMatchObject([{ id: next, prev: last?.hash }]);
    expect(next).not.toBe(ids[2]);
    expect(await log.verify()).toEqual({ ok: true, records: 1 });
  });

  it('finds a record dropped from the head without going through expiry', async () => {
    const space = backend.space('head-dropped');
    const log = await space.open();
    const ids = await appendAll(log, [100, 200, 300, 400, 500]);
    expect(await log.expire(250, 10)).toBe(2);
    expect(await log.verify()).toEqual({ ok: true, records: 3 });

    await space.remove(ids[2] ?? '');
    expect(await log.verify()).toEqual({
      ok: false,
      records: 0,
      brokenAt: ids[3],
      problem: `record ${ids[3]}: does not follow the last expired record (a record before it was removed without being expired, or altered)`,
    });
  });

  it('verifies a trail longer than one batch', async () => {
    const log = await backend.space('long').open();
    await Promise.all(Array.from({ length: 2_345 }, (_, index) => log.append(JSON.stringify({ index }), index)));
    expect(await log.verify()).toEqual({ ok: true, records: 2_345 });
  });

  it('walks again when an expiry overtakes the walk', async () => {
    const space = backend.space('overtaken');
    const log = await space.open();
    const sweeper = await space.open();
    await Promise.all(Array.from({ length: 2_500 }, (_, index) => log.append(JSON.stringify({ index }), index)));
    // Right after the first batch, the sweeper drops past the record the walk has reached.
    const read = log.read.bind(log);
    let swept = 0;
    log.read = async (options) => {
      if (options?.afterId !== undefined && swept === 0) swept = await sweeper.expire(Number.MAX_SAFE_INTEGER, 1_500);
      return read(options);
    };
    expect(await log.verify()).toEqual({ ok: true, records: 1_000 });
    expect(swept).toBe(1_500);
  });

  it('lands every record once when several instances append at the same time', async () => {
    const space = backend.space('parallel');
    const logs = [await space.open(), await space.open()];
    const texts = Array.from({ length: 200 }, (_, index) => JSON.stringify({ index }));
    const ids = await Promise.all(texts.map((text, index) => logs[index % 2]?.append(text, index)));

    const records = await readAll(await space.open());
    expect(records.map((record) => record.id).sort()).toEqual([...new Set(ids)].sort());
    expect(records.map((record) => record.text).sort()).toEqual([...texts].sort());
    expect(await logs[0]?.verify()).toEqual({ ok: true, records: 200 });
  });

  it('stays intact with several processes appending while records expire and the trail is verified', async () => {
    const space = backend.space('processes');
    const sweeper = await space.open();
    const checker = await space.open();
    let dropped = 0;
    const checks: unknown[] = [];
    // The sweeper and the checker run side by side: a verify may see the anchor move under it.
    const ids = await appendFromProcesses(space, 3, 100, async (done) => {
      const sweep = async () => {
        while (!done()) {
          dropped += await sweeper.expire(Number.MAX_SAFE_INTEGER, 7);
          await sleep(Math.random() * 3);
        }
      };
      const check = async () => {
        while (!done()) {
          checks.push(await checker.verify());
          await sleep(1);
        }
      };
      await Promise.all([sweep(), check()]);
    });

    expect(new Set(ids).size).toBe(300);
    const remaining = await readAll(checker);
    expect(remaining.length + dropped).toBe(300);
    expect(remaining.map((record) => record.id).every((id) => ids.includes(id))).toBe(true);
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((check) => !(check as { ok: boolean }).ok)).toEqual([]);
    expect(await checker.verify()).toEqual({ ok: true, records: remaining.length });
  });
});

describe('audit log errors', () => {
  it('turns SQLite failures into StoreUnavailableError naming the file', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tally-audit-errors-'));
    const path = join(directory, 'state.db');
    const writable = new Database(path);
    const readonly = new Database(path, { readonly: true });
    try {
      await new SqliteAuditLog(writable).append('{"first":true}', 1);
      const log = new SqliteAuditLog(readonly);
      expect(await log.read()).toHaveLength(1);
      const refused = await log.append('{"second":true}', 2).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StoreUnavailableError);
      expect((refused as AppError).message).toContain(path);
      expect((refused as AppError).message).toMatch(/readonly/);

      readonly.close();
      const closed = await log.verify().catch((error: unknown) => error);
      expect(closed).toBeInstanceOf(StoreUnavailableError);
      expect((closed as AppError).message).toContain('the store was closed');
    } finally {
      await cleanUp(
        () => writable.close(),
        () => readonly.open && readonly.close(),
        () => rmSync(directory, { recursive: true, force: true }),
      );
    }
  });

  it('runs every Redis call through the store wrapper, which names a lost connection', async () => {
    const redis = await createRedisTestSpace('audit-log-errors');
    const client = RedisConnection.open({ url: redis.url }, 3_000, () => false);
    try {
      await client.connect();
      const log = new RedisAuditLog(client, redis.keyPrefix, async (operation) => {
        try {
          return await operation();
        } catch (error) {
          throw new StoreUnavailableError(redis.url, 'Redis does not answer', error);
        }
      });
      await log.append('{"first":true}', 1);
      await client.close();
      const operations = [
        () => log.append('{"second":true}', 2),
        () => log.read(),
        () => log.expire(10, 10),
        () => log.verify(),
      ];
      for (const operation of operations) {
        expect(await operation().catch((error: unknown) => error)).toBeInstanceOf(StoreUnavailableError);
      }
    } finally {
      await cleanUp(
        () => client.isOpen && client.close(),
        () => redis.cleanup(),
      );
    }
  });
});
