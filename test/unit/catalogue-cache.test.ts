/**
 * The connector's kept catalogue (`src/db/catalogue-cache.ts`): read once, trusted between fingerprint checks, read
 * again when the fingerprint moves, when it is too old, or when asked for a fresh one; overlapping calls share a read;
 * a turn's call takes what was checked lately at once and leaves the due check to the calls after it.
 */
import { describe, expect, it } from 'vitest';
import { CatalogueCache } from '../../src/db/catalogue-cache.js';
import type { TableDescription } from '../../src/ports/database.js';

function source() {
  const state = { version: 'v1', reads: 0, fingerprints: 0, now: 0 };
  const cache = new CatalogueCache(
    {
      async read(): Promise<TableDescription[]> {
        state.reads += 1;
        return [{ name: `t${state.reads}`, rows: 0, rowsExact: true, columns: [] }];
      },
      async fingerprint() {
        state.fingerprints += 1;
        return state.version;
      },
    },
    { checkEveryMs: 1000, maxAgeMs: 60_000, keptForMs: 10_000, now: () => state.now },
  );
  return { state, cache };
}

describe('CatalogueCache', () => {
  it('reads once and gives the same catalogue while the fingerprint holds', async () => {
    const { state, cache } = source();
    const first = await cache.get();
    state.now = 500;
    expect(await cache.get()).toBe(first);
    expect(state).toMatchObject({ reads: 1, fingerprints: 1 });
    state.now = 1500;
    expect(await cache.get()).toBe(first);
    expect(state).toMatchObject({ reads: 1, fingerprints: 2 });
  });

  it('reads again once the fingerprint moved, at the next check', async () => {
    const { state, cache } = source();
    const first = await cache.get();
    state.version = 'v2';
    state.now = 200;
    expect(await cache.get()).toBe(first);
    state.now = 1200;
    const second = await cache.get();
    expect(second.version).toBe('v2');
    expect(second.tables[0]?.name).toBe('t2');
  });

  it('reads again when too old, and when asked for a fresh one', async () => {
    const { state, cache } = source();
    await cache.get();
    state.now = 60_000;
    expect((await cache.get()).tables[0]?.name).toBe('t2');
    expect((await cache.get({ fresh: true })).tables[0]?.name).toBe('t3');
  });

  it('gives what is kept at once when asked to, leaving the due check to run for the next call', async () => {
    const { state, cache } = source();
    expect((await cache.get({ kept: true })).tables[0]?.name).toBe('t1');
    state.version = 'v2';
    state.now = 1500;
    const kept = await cache.get({ kept: true });
    expect(kept.version).toBe('v1');
    expect(state.fingerprints).toBe(2);
    // A call that waits shares the check it started, which found the change; kept calls have it from then on.
    expect(await cache.get()).toMatchObject({ version: 'v2', tables: [{ name: 't2' }] });
    expect((await cache.get({ kept: true })).version).toBe('v2');
    expect(state).toMatchObject({ reads: 2, fingerprints: 2 });
  });

  it('makes a kept call wait for the check after a longer quiet than it may keep for', async () => {
    const { state, cache } = source();
    await cache.get({ kept: true });
    state.version = 'v2';
    state.now = 20_000;
    expect((await cache.get({ kept: true })).version).toBe('v2');
  });

  it('keeps answering from what is kept when a check in the background fails, and the next wait sees the error', async () => {
    const { state, cache } = source();
    await cache.get();
    const failing = cache as unknown as { source: { fingerprint: () => Promise<string> } };
    failing.source.fingerprint = () => Promise.reject(new Error('server gone'));
    state.now = 1500;
    expect((await cache.get({ kept: true })).version).toBe('v1');
    await expect(cache.get()).rejects.toThrow('server gone');
  });

  it('shares one read between calls that overlap', async () => {
    const { state, cache } = source();
    const [a, b] = await Promise.all([cache.get(), cache.get()]);
    expect(a).toBe(b);
    expect(state.reads).toBe(1);
  });
});
