/**
 * What only the embedded SQLite store does: the file created on first use, the keyv adapter's TTL
 * rules, an honest error for a path it cannot use, and what a second process on the same file sees.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import Keyv from 'keyv';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AppError, LockTimeoutError, StoreUnavailableError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import type { Store } from '../../src/ports/store.js';
import { createStore } from '../../src/store/create-store.js';
import { KeyvSqlite } from '../../src/store/keyv-sqlite.js';

const logger = createLogger({ level: 'silent' });
const ROOT = join(import.meta.dirname, '..', '..');
let directory: string;
const cleanups: Array<() => unknown> = [];

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'tally-sqlite-store-'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

async function open(path: string): Promise<Store> {
  const store = await createStore({ sqlitePath: path, logger });
  cleanups.push(() => store.close());
  return store;
}

function inspect(path: string): Database.Database {
  const database = new Database(path, { readonly: true });
  cleanups.push(() => database.close());
  return database;
}

describe('SQLite store', () => {
  it('creates the file and its folders on first use, in WAL mode', async () => {
    const path = join(directory, 'fresh', 'home', 'state.db');
    const store = await open(path);
    await store.set('first', 1);
    const database = inspect(path);
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(['keyv', 'list_bases', 'list_items', 'locks']);
  });

  it('fails with StoreUnavailableError naming TALLY_HOME when the path cannot be used', async () => {
    const file = join(directory, 'a-file');
    writeFileSync(file, 'not a folder');
    const error = await createStore({ sqlitePath: join(file, 'state.db'), logger }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as AppError).code).toBe('STORE_UNAVAILABLE');
    expect((error as Error).message).toContain(join(file, 'state.db'));
    expect((error as Error).message).toContain('TALLY_HOME');
  });

  it('fails with StoreUnavailableError when another writer keeps the file locked past the busy timeout', async () => {
    const path = join(directory, 'hogged.db');
    const store = await open(path);
    await store.append('journal', 'before');
    const hog = new Database(path);
    cleanups.push(() => hog.close());
    hog.exec('BEGIN EXCLUSIVE');
    try {
      const error = await store.append('journal', 'blocked').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toContain(path);
      expect((error as Error).message).toMatch(/locked/);
    } finally {
      hog.exec('ROLLBACK');
    }
    expect(await store.append('journal', 'after')).toBe(2);
  });

  it('stores keyv entries with an expiry column that follows the TTL', async () => {
    const path = join(directory, 'ttl.db');
    const store = await open(path);
    await store.set('with-ttl', 'x', 60_000);
    await store.set('without-ttl', 'y');
    const rows = inspect(path).prepare('SELECT key, value, expires FROM keyv ORDER BY key').all() as Array<{
      key: string;
      value: string;
      expires: number | null;
    }>;
    expect(rows.map((row) => [row.key, JSON.parse(row.value).value, row.expires === null])).toEqual([
      ['with-ttl', 'x', false],
      ['without-ttl', 'y', true],
    ]);
    expect(rows[0]?.expires).toBeGreaterThan(Date.now());
  });

  describe('KeyvSqlite adapter under keyv', () => {
    let database: Database.Database;
    beforeAll(() => {
      database = new Database(join(directory, 'adapter.db'));
    });
    afterAll(() => {
      database.close();
    });

    it('reads an expired entry as missing and deletes its row', async () => {
      // The clock is the test's: on a loaded machine a real 50 ms TTL could run out before the first read.
      const adapter = new KeyvSqlite({ database, table: 'expiry' });
      const keyv = new Keyv(adapter);
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        await keyv.set('soon', { a: 1 }, 50);
        await keyv.set('zero-ttl', 'kept', 0);
        expect(await keyv.get('soon')).toEqual({ a: 1 });
        vi.setSystemTime(Date.now() + 51);
        // Below keyv too: the adapter itself must not hand out an expired value.
        expect(await adapter.get('keyv:soon')).toBeUndefined();
      } finally {
        vi.useRealTimers();
      }
      expect(database.prepare('SELECT count(*) FROM expiry WHERE key = ?').pluck().get('keyv:soon')).toBe(0);
      expect(await keyv.get('zero-ttl')).toBe('kept');
      expect(database.prepare('SELECT expires FROM expiry WHERE key = ?').pluck().get('keyv:zero-ttl')).toBeNull();
    });

    it('clears only its own namespace', async () => {
      const first = new Keyv(new KeyvSqlite({ database, table: 'shared' }), { namespace: 'first' });
      const second = new Keyv(new KeyvSqlite({ database, table: 'shared' }), { namespace: 'second' });
      await first.set('a', 1);
      await second.set('a', 2);
      await first.clear();
      expect(await first.get('a')).toBeUndefined();
      expect(await second.get('a')).toBe(2);
    });

    it('refuses table names that are not plain identifiers', () => {
      expect(() => new KeyvSqlite({ database, table: 'x; DROP TABLE keyv' })).toThrow(TypeError);
    });
  });

  describe('a second process on the same file', () => {
    let child: ChildProcess | undefined;
    afterEach(() => {
      child?.kill('SIGKILL');
      child = undefined;
    });

    /** Starts a process that opens the store, appends `count` items once told to go, then takes `lock` and keeps it. */
    function startOtherProcess(path: string, count: number, lock: string) {
      const script = `
        const { createStore } = await import(${JSON.stringify(join(ROOT, 'src/store/create-store.ts'))});
        const { createLogger } = await import(${JSON.stringify(join(ROOT, 'src/base/logger.ts'))});
        const logger = createLogger({ level: 'silent' });
        const store = await createStore({ sqlitePath: ${JSON.stringify(path)}, logger });
        console.log('ready');
        if (${count} > 0) await new Promise((resolve) => process.stdin.once('data', resolve));
        for (let index = 0; index < ${count}; index++) {
          await store.append('shared', { from: 'child', index });
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        console.log('appended');
        setInterval(() => {}, 60_000); // stay alive while holding the lock, like a busy bot
        await store.withLock(${JSON.stringify(lock)}, () => { console.log('held'); return new Promise(() => {}); });
      `;
      child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
      const seen = new Set<string>();
      lines.on('line', (line) => seen.add(line.trim()));
      const waitFor = (line: string) =>
        vi.waitFor(() => expect(seen.has(line)).toBe(true), { timeout: 30_000, interval: 10 });
      const started = child;
      const go = () => started.stdin?.write('go\n');
      return { process: child, waitFor, go };
    }

    it('interleaves appends without losing any, and a held lock gives an honest error, not interleaving', async () => {
      const path = join(directory, 'two-processes.db');
      const store = await open(path);
      const other = startOtherProcess(path, 300, 'turn');
      await other.waitFor('ready');
      other.go();
      for (let index = 0; index < 300; index++) {
        await store.append('shared', { from: 'parent', index });
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await other.waitFor('appended');
      const items = await store.range<{ from: string; index: number }>('shared');
      expect(items).toHaveLength(600);
      expect(new Set(items.map((item) => `${item.from}:${item.index}`)).size).toBe(600);
      // Both processes really wrote at the same time: their items alternate many times.
      const switches = items.filter((item, index) => index > 0 && items[index - 1]?.from !== item.from).length;
      expect(switches).toBeGreaterThan(10);

      await other.waitFor('held');
      const error = await store
        .withLock('turn', async () => 'never', { waitMs: 200 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LockTimeoutError);
      expect((error as Error).message).toContain(`process ${other.process.pid}`);
      expect((error as Error).message).toContain('REDIS_URL');
    });

    it('takes over at once a lock whose holder process died, without waiting for its TTL', async () => {
      const path = join(directory, 'dead-holder.db');
      const store = await open(path);
      const other = startOtherProcess(path, 0, 'turn');
      await other.waitFor('held');
      other.process.kill('SIGKILL');
      await new Promise((resolve) => other.process.once('exit', resolve));
      // The dead process took the lock with the default 10-minute TTL; a short wait must be enough.
      expect(await store.withLock('turn', async () => 'taken over', { waitMs: 2_000 })).toBe('taken over');
    });
  });
});
