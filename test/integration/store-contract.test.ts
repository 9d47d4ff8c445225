import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AppError, LockTimeoutError, StoreUnavailableError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import type { Store } from '../../src/ports/store.js';
import { redisBackend, redisClusterBackend, sqliteBackend } from '../support/store-backends.js';

const _logger = createLogger({ level: 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<never>(() => {});

describe.each([sqliteBackend('contract', 'home/state.db'), redisBackend('contract'), redisClusterBackend('contract')])(
  'Store contract on $name',
  (backend) => {
    const opened: Store[] = [];
    let store: Store;
    const open = async () => {
      const instance = await backend.open();
      opened.push(instance);
      return instance;
    };

    beforeAll(async () => {
      await backend.setUp();
      store = await open();
    });

    afterAll(async () => {
      for (const instance of opened) await instance.close();
      await backend.tearDown();
    });

    describe('values', () => {
      it('gets what was set, overwrites, and forgets on delete', async () => {
        expect(await store.get('missing')).toBeUndefined();
        await store.set('session', { state: 'open' });
        expect(await store.get('session')).toEqual({ state: 'open' });
        await store.set('session', { state: 'parked' });
        expect(await store.get('session')).toEqual({ state: 'parked' });
        await store.delete('session');
        expect(await store.get('session')).toBeUndefined();
        await store.delete('session');
      });

      it('round-trips JSON: unicode, nesting, falsy values', async () => {
        const record = {
          threadKey: 'slack:T1:C1:1700000000.0001',
          title: 'Churn by contract — 契約別の解約率 📉 مرحبا',
          combining: 'e\u0301',
          escapes: 'quote " backslash \\ newline \n tab \t nul \u0000 colon-start',
          messages: [
            { role: 'user', content: 'why do customers leave?', files: [] },
            { role: 'assistant', content: null, toolCalls: [{ id: 'c1', arguments: { sql: 'SELECT 1', rows: 5 } }] },
          ],
          settings: {
            temperature: 0.2,
            decompose: 'auto',
            nested: { deeper: { deepest: [1, [2, [3, { four: 4 }]]] } },
          },
          numbers: [0, -1, 1.5e-9, Number.MAX_SAFE_INTEGER],
          flags: [true, false, null],
        };
        await store.set('record', record);
        expect(await store.get('record')).toEqual(record);
        await store.set(':colon-key:', ':base64:not really');
        expect(await store.get(':colon-key:')).toBe(':base64:not really');
        for (const falsy of [0, '', false, null, [], {}]) {
          await store.set('falsy', falsy);
          expect(await store.get('falsy')).toEqual(falsy);
        }
        await store.set('unicode key ключ 键', 1);
        expect(await store.get('unicode key ключ 键')).toBe(1);
      });

      it('forgets a value after its TTL, and keeps values set without one', async () => {
        await store.set('short', 'soon gone', 150);
        await store.set('long', 'stays');
        expect(await store.get('short')).toBe('soon gone');
        await vi.waitFor(async () => expect(await store.get('short')).toBeUndefined(), {
          timeout: 5_000,
          interval: 25,
        });
        expect(await store.get('long')).toBe('stays');
      });

      it('drops the old TTL when a value is set again without one', async () => {
        await store.set('renewed', 'first', 100);
        await store.set('renewed', 'second');
        await sleep(300);
        expect(await store.get('renewed')).toBe('second');
      });

      it('refuses a TTL that is not a whole, positive number of ms', async () => {
        await expect(store.set('bad', 1, 0)).rejects.toThrow(RangeError);
        await expect(store.set('bad', 1, -5)).rejects.toThrow(RangeError);
        await expect(store.set('bad', 1, 1.5)).rejects.toThrow(RangeError);
      });
    });

    describe('lists', () => {
      it('appends in order, returns the new length, and pages with from and limit', async () => {
        expect(await store.range('journal')).toEqual([]);
        for (let index = 0; index < 10; index++) {
          expect(await store.append('journal', { cell: index, code: `x = ${index}` })).toBe(index + 1);
        }
        const all = await store.range<{ cell: number }>('journal');
        expect(all.map((item) => item.cell)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect((await store.range<{ cell: number }>('journal', 3, 4)).map((item) => item.cell)).toEqual([3, 4, 5, 6]);
        expect((await store.range<{ cell: number }>('journal', 8)).map((item) => item.cell)).toEqual([8, 9]);
        expect((await store.range<{ cell: number }>('journal', 8, 50)).map((item) => item.cell)).toEqual([8, 9]);
        expect(await store.range('journal', 10)).toEqual([]);
        expect(await store.range('journal', 2, 0)).toEqual([]);
        expect(await store.range('other-journal')).toEqual([]);
      });

      it('keeps list items as JSON', async () => {
        const items = ['text', 7, null, { nested: ['é', { deep: true }] }, [1, 2]];
        for (const item of items) await store.append('mixed', item);
        expect(await store.range('mixed')).toEqual(items);
        await expect(store.append('mixed', undefined)).rejects.toThrow(TypeError);
      });

      it('refuses negative or fractional paging', async () => {
        await expect(store.range('journal', -1)).rejects.toThrow(RangeError);
        await expect(store.range('journal', 0, -1)).rejects.toThrow(RangeError);
        await expect(store.range('journal', 0.5)).rejects.toThrow(RangeError);
      });

      it('keeps every one of 200 concurrent appends exactly once, in the order their lengths say', async () => {
        const lengths = await Promise.all(Array.from({ length: 200 }, (_, index) => store.append('burst', { index })));
        expect([...lengths].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));
        const items = await store.range<{ index: number }>('burst');
        expect(items).toHaveLength(200);
        expect(new Set(items.map((item) => item.index)).size).toBe(200);
        // The length an append returned is that item's position: the order is the order of the appends.
        lengths.forEach((length, index) => {
          expect(items[length - 1]).toEqual({ index });
        });
      });

      it('keeps concurrent appends from two instances (two replicas) exactly once', async () => {
        const other = await open();
        const appends = Array.from({ length: 100 }, (_, index) => [
          store.append('shared', { from: 'a', index }),
          other.append('shared', { from: 'b', index }),
        ]).flat();
        await Promise.all(appends);
        const items = await store.range<{ from: string; index: number }>('shared');
        expect(items).toHaveLength(200);
        expect(new Set(items.map((item) => `${item.from}${item.index}`)).size).toBe(200);
        expect(await other.range('shared')).toEqual(items);
      });
    });

    describe('trim, remove, delete and keys', () => {
      const cells = async (instance: Store, list: string, from?: number, limit?: number) =>
        (await instance.range<{ cell: number }>(list, from, limit)).map((item) => item.cell);

      it('trims the front of a list and keeps the positions of the rest', async () => {
        for (let cell = 0; cell < 10; cell++) await store.append('trimmed', { cell });
        expect(await store.trim('trimmed', 4)).toBe(4);
        expect(await cells(store, 'trimmed')).toEqual([4, 5, 6, 7, 8, 9]);
        expect(await cells(store, 'trimmed', 6)).toEqual([6, 7, 8, 9]);
        expect(await cells(store, 'trimmed', 4, 2)).toEqual([4, 5]);
        // Positions before the trim point are gone: a page from 0 starts at the first item left.
        expect(await cells(store, 'trimmed', 0, 2)).toEqual([4, 5]);
        expect(await store.append('trimmed', { cell: 10 })).toBe(11);
        expect(await cells(store, 'trimmed', 10)).toEqual([10]);
        // Trimming again to the same point, or an earlier one, drops nothing and moves nothing.
        expect(await store.trim('trimmed', 4)).toBe(0);
        expect(await store.trim('trimmed', 1)).toBe(0);
        expect(await cells(store, 'trimmed', 5, 1)).toEqual([5]);
        expect(await store.trim('trimmed', 7)).toBe(3);
        expect(await cells(store, 'trimmed')).toEqual([7, 8, 9, 10]);
        expect(await cells(store, 'trimmed', 9)).toEqual([9, 10]);
        await expect(store.trim('trimmed', -1)).rejects.toThrow(RangeError);
        await expect(store.trim('trimmed', 1.5)).rejects.toThrow(RangeError);
      });

      it('goes on numbering after the last item when a list is trimmed empty', async () => {
        for (let cell = 0; cell < 3; cell++) await store.append('emptied', { cell });
        expect(await store.trim('emptied', 100)).toBe(3);
        expect(await store.range('emptied')).toEqual([]);
        expect(await store.trim('emptied', 100)).toBe(0);
        expect(await store.append('emptied', { cell: 3 })).toBe(4);
        expect(await cells(store, 'emptied')).toEqual([3]);
        expect(await cells(store, 'emptied', 3)).toEqual([3]);
        expect(await cells(store, 'emptied', 4)).toEqual([]);
        expect(await store.trim('nothing-to-trim', 5)).toBe(0);
        expect(await store.append('nothing-to-trim', { cell: 0 })).toBe(1);
      });

      it('sees a trim made by another instance (another replica) at the same positions', async () => {
        const other = await open();
        for (let cell = 0; cell < 5; cell++) await store.append('trimmed-elsewhere', { cell });
        expect(await other.trim('trimmed-elsewhere', 3)).toBe(3);
        expect(await cells(store, 'trimmed-elsewhere')).toEqual([3, 4]);
        expect(await cells(store, 'trimmed-elsewhere', 4)).toEqual([4]);
        expect(await store.append('trimmed-elsewhere', { cell: 5 })).toBe(6);
        expect(await other.append('trimmed-elsewhere', { cell: 6 })).toBe(7);
        expect(await cells(other, 'trimmed-elsewhere', 5)).toEqual([5, 6]);
        expect(await store.trim('trimmed-elsewhere', 3)).toBe(0);
      });

      it('removes every item with the same JSON, and only those', async () => {
        const items = ['a', 'b', 'a', { x: 1, y: [2] }, 1, '1', 'c'];
        for (const item of items) await store.append('names', item);
        expect(await store.remove('names', 'a')).toBe(2);
        expect(await store.range('names')).toEqual(['b', { x: 1, y: [2] }, 1, '1', 'c']);
        expect(await store.remove('names', { x: 1, y: [2] })).toBe(1);
        expect(await store.remove('names', 1)).toBe(1);
        expect(await store.range('names')).toEqual(['b', '1', 'c']);
        expect(await store.remove('names', 'a')).toBe(0);
        expect(await store.remove('no-such-list', 'a')).toBe(0);
        await expect(store.remove('names', undefined)).rejects.toThrow(TypeError);
      });

      it('deletes the value and the list of the same name, trim point included', async () => {
        await store.set('both', { state: 'open' });
        for (let cell = 0; cell < 4; cell++) await store.append('both', { cell });
        await store.trim('both', 2);
        await store.set('both-other', 'kept');
        await store.append('both-other', 'kept');
        await store.delete('both');
        expect(await store.get('both')).toBeUndefined();
        expect(await store.range('both')).toEqual([]);
        expect(await store.keys('both')).toEqual(['both-other']);
        // A list deleted after a trim starts again from position 0.
        expect(await store.append('both', { cell: 0 })).toBe(1);
        expect(await store.get('both-other')).toBe('kept');
        expect(await store.range('both-other')).toEqual(['kept']);
        await store.append('list-only', 1);
        await store.delete('list-only');
        expect(await store.range('list-only')).toEqual([]);
      });

      it('lists the names of values and lists that start with a prefix, each once', async () => {
        await store.set('keys:a', 1);
        await store.set('keys:b', 2, 60_000);
        await store.append('keys:b', 'a list and a value of one name');
        await store.append('keys:c', 'a list');
        await store.append('keys:trimmed', 'first');
        await store.append('keys:trimmed', 'second');
        await store.trim('keys:trimmed', 1);
        await store.append('keys:emptied', 'gone');
        await store.trim('keys:emptied', 1);
        await store.set('keys:expired', 1, 100);
        await store.set('other:keys:a', 1);
        await store.set('keys', 1);
        await store.set('keyz:a', 1);
        await sleep(300);
        const names = await store.withLock('keys:locked', () => store.keys('keys:'));
        expect(names.sort()).toEqual(['keys:a', 'keys:b', 'keys:c', 'keys:trimmed']);
        expect((await store.keys('keys:t')).sort()).toEqual(['keys:trimmed']);
        expect(await store.keys('keys:none')).toEqual([]);
        expect(await store.keys('')).toEqual(expect.arrayContaining(['keys:a', 'keys', 'keyz:a', 'other:keys:a']));
      });

      it('matches a prefix literally, glob characters included', async () => {
        await store.set('glob*[x]?\\tail', 1);
        await store.append('glob*[x]list', 1);
        await store.set('globby', 1);
        await store.set('glob*x', 1);
        await store.set('glob?', 1);
        await store.append('glob[x]', 1);
        expect((await store.keys('glob*')).sort()).toEqual(['glob*[x]?\\tail', 'glob*[x]list', 'glob*x']);
        expect((await store.keys('glob*[x]')).sort()).toEqual(['glob*[x]?\\tail', 'glob*[x]list']);
        expect(await store.keys('glob*[x]?\\')).toEqual(['glob*[x]?\\tail']);
        expect(await store.keys('glob[')).toEqual(['glob[x]']);
        expect(await store.keys('glob?')).toEqual(['glob?']);
      });
    });

    describe('persistence', () => {
      it('keeps values and lists across close and reopen', async () => {
        const first = await open();
        await first.set('kept', { report: ['intro', 'churn'] });
        await first.append('kept-list', 'one');
        await first.append('kept-list', 'two');
        await first.close();
        const second = await open();
        expect(await second.get('kept')).toEqual({ report: ['intro', 'churn'] });
        expect(await second.range('kept-list')).toEqual(['one', 'two']);
        expect(await second.append('kept-list', 'three')).toBe(3);
      });

      it('fails with StoreUnavailableError once closed', async () => {
        const closing = await open();
        await closing.close();
        await closing.close();
        const error = await closing.get('kept').catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as AppError).code).toBe('STORE_UNAVAILABLE');
        await expect(closing.append('kept-list', 1)).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(closing.trim('kept-list', 1)).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(closing.keys('kept')).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(closing.withLock('closed', async () => 1)).rejects.toBeInstanceOf(StoreUnavailableError);
      });
    });

    describe('locks', () => {
      /** Many tasks each read a counter, wait, and write it back plus one: any overlap loses an update. */
      async function countUnderLock(stores: Store[], tasksPerStore: number, counter: string) {
        let inside = 0;
        let mostInside = 0;
        await Promise.all(
          stores.flatMap((instance) =>
            Array.from({ length: tasksPerStore }, () =>
              instance.withLock(
                counter,
                async () => {
                  inside++;
                  mostInside = Math.max(mostInside, inside);
                  const value = (await instance.get<number>(counter)) ?? 0;
                  await sleep(Math.random() * 4);
                  await instance.set(counter, value + 1);
                  inside--;
                },
                { waitMs: 30_000 },
              ),
            ),
          ),
        );
        return { total: await stores[0]?.get<number>(counter), mostInside };
      }

      it('runs one task at a time: 40 read-modify-write increments lose no update', async () => {
        expect(await countUnderLock([store], 40, 'counter-one')).toEqual({ total: 40, mostInside: 1 });
      });

      it('is exclusive across two instances contending for the same lock (two replicas)', async () => {
        const other = await open();
        expect(await countUnderLock([store, other], 20, 'counter-two')).toEqual({ total: 40, mostInside: 1 });
      });

      it('runs every waiter in a queue, each in turn, in arrival order within an instance', async () => {
        const order: number[] = [];
        await Promise.all(
          Array.from({ length: 25 }, (_, index) =>
            store.withLock('queue', async () => {
              order.push(index);
              await sleep(1);
            }),
          ),
        );
        expect(order).toEqual(Array.from({ length: 25 }, (_, index) => index));
      });

      it('returns the task result, and frees the lock when the task throws', async () => {
        expect(await store.withLock('result', async () => ({ rows: 3 }))).toEqual({ rows: 3 });
        await expect(
          store.withLock('throws', async () => {
            throw new Error('cell failed');
          }),
        ).rejects.toThrow('cell failed');
        const other = await open();
        expect(await other.withLock('throws', async () => 'free again', { waitMs: 0 })).toBe('free again');
      });

      it('throws LockTimeoutError naming the lock and waitMs when waiting runs out', async () => {
        let finish!: () => void;
        let started!: () => void;
        const holding = new Promise<void>((resolve) => (started = resolve));
        const held = store.withLock('busy-thread', () => {
          started();
          return new Promise<void>((resolve) => (finish = resolve));
        });
        await holding;
        const other = await open();
        for (const waiter of [store, other]) {
          const error = await waiter
            .withLock('busy-thread', async () => 'never', { waitMs: 100 })
            .catch((caught: unknown) => caught);
          expect(error).toBeInstanceOf(LockTimeoutError);
          expect((error as AppError).code).toBe('LOCK_TIMEOUT');
          expect((error as Error).message).toContain("'busy-thread'");
          expect((error as Error).message).toContain('waitMs');
        }
        finish();
        await held;
        expect(await other.withLock('busy-thread', async () => 'mine', { waitMs: 0 })).toBe('mine');
      });

      it('keeps the lock while the task runs past its TTL', async () => {
        let finish!: () => void;
        let started!: () => void;
        const holding = new Promise<void>((resolve) => (started = resolve));
        const held = store.withLock(
          'long-task',
          () => {
            started();
            return new Promise<void>((resolve) => (finish = resolve));
          },
          { ttlMs: 200 },
        );
        await holding;
        const other = await open();
        // Three TTLs: without keep-alive the lock would have expired and this would get in.
        await expect(other.withLock('long-task', async () => 1, { waitMs: 600 })).rejects.toBeInstanceOf(
          LockTimeoutError,
        );
        finish();
        await held;
      });

      it('frees the lock of a crashed holder once its TTL runs out', async () => {
        const crashing = await open();
        let started!: () => void;
        const holding = new Promise<void>((resolve) => (started = resolve));
        void crashing.withLock(
          'crashed-thread',
          () => {
            started();
            return never();
          },
          { ttlMs: 1_000 },
        );
        await holding;
        await crashing.close(); // the holder is gone: nothing extends or releases its lock any more
        const survivor = await open();
        await expect(survivor.withLock('crashed-thread', async () => 1, { waitMs: 50 })).rejects.toBeInstanceOf(
          LockTimeoutError,
        );
        expect(await survivor.withLock('crashed-thread', async () => 'taken over', { waitMs: 10_000 })).toBe(
          'taken over',
        );
      });
    });
  },
);
