/** Adapters remember their review and approval posts in the store, so a restarted tally still knows them. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RememberedPosts } from '../../adapters/common/remembered-posts.js';
import { createLogger } from '../../src/base/logger.js';
import type { Store } from '../../src/ports/store.js';
import { createStore } from '../../src/store/create-store.js';

let folder: string;
let store: Store;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-posts-'));
  store = await createStore({ sqlitePath: join(folder, 'state.db'), logger: createLogger({ level: 'silent' }) });
});
afterEach(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

describe('remembered posts', () => {
  it('recalls a post after a restart (a new instance on the same store), per platform', async () => {
    const review = { kind: 'review', value: 's1@2', threadKey: 'slack:T:C:1.2' };
    await new RememberedPosts('slack', store).remember('C1:1700000000.000200', review);
    const restarted = new RememberedPosts('slack', store);
    expect(await restarted.recall('C1:1700000000.000200')).toEqual(review);
    expect(await new RememberedPosts('discord', store).recall('C1:1700000000.000200')).toBeUndefined();
  });

  it('without a store, remembers only while the process lives', async () => {
    const posts = new RememberedPosts<string>('slack');
    await posts.remember('m1', 'approval');
    expect(await posts.recall('m1')).toBe('approval');
    expect(await new RememberedPosts<string>('slack').recall('m1')).toBeUndefined();
  });

  it('keeps only the most recently used in memory, and reads the others back from the store', async () => {
    const posts = new RememberedPosts<string>('slack', store);
    for (let index = 0; index < 2_001; index += 1) await posts.remember(`m${index}`, `post ${index}`);
    await store.delete('post:slack:m0'); // only memory could still answer for m0
    await store.delete('post:slack:m2000');
    expect(await posts.recall('m0')).toBeUndefined();
    expect(await posts.recall('m2000')).toBe('post 2000');
    expect(await posts.recall('m1')).toBe('post 1');
  });
});
