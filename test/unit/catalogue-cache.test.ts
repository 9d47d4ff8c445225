/**
 * The connector's kept catalogue (`src/db/catalogue-cache.ts`): read once, trusted between fingerprint checks, read
 * again when the fingerprint moves, when it is too old, or when asked for a fresh one; overlapping calls share a read.
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
    { checkEveryMs: 1000, maxAgeMs: 60_000, now: () => state.now },
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

  it('shares one read between calls that overlap', async () => {
    const { state, cache } = source();
    const [a, b] = await Promise.all([cache.get(), cache.get()]);
    expect(a).toBe(b);
    expect(state.reads).toBe(1);
  });
});
