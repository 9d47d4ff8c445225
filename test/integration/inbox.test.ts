/**
 * The durable inbox on the real embedded store: what a process finds unfinished, what counts as
 * interrupted (a turn began and never ended) and what does not (put back on purpose), and the
 * cursor that lets the scan skip the finished head.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.js';
import type { Store } from '../../src/ports/store.js';
import { Inbox } from '../../src/sessions/inbox.js';
import { createStore } from '../../src/store/create-store.js';

let folder: string;
let store: Store;
let inbox: Inbox;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-inbox-'));
  store = await createStore({ sqlitePath: join(folder, 'state.db'), logger: createLogger({ level: 'silent' }) });
  inbox = new Inbox(store);
});

afterEach(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

const message = (threadKey: string, text: string) => ({ threadKey, user: { id: 'U1' }, text, receivedAt: 1 });

describe('the inbox', () => {
  it('writes a platform message down once however often it is delivered, also by two stores at once', async () => {
    let kept = 0;
    const keep = async () => {
      kept += 1;
    };
    const mention = { ...message('t1', 'how many churned?'), messageId: '1700000000.0001' };
    expect(await inbox.addOnce(mention, 'a', '1700000000.0001', 1, keep)).toMatchObject({ id: 'a' });
    expect(await inbox.addOnce(mention, 'b', '1700000000.0001', 2, keep)).toBeUndefined();
    // Another replica (its own connection to the same file) gets the same retry at the same moment as this one.
    const other = await createStore({
      sqlitePath: join(folder, 'state.db'),
      logger: createLogger({ level: 'silent' }),
    });
    try {
      const retry = { ...message('t1', 'a new one'), messageId: '1700000000.0002' };
      const both = await Promise.all([
        inbox.addOnce(retry, 'c', '1700000000.0002', 3, keep),
        new Inbox(other).addOnce(retry, 'd', '1700000000.0002', 3, keep),
      ]);
      expect(both.filter((item) => item !== undefined)).toHaveLength(1);
    } finally {
      await other.close();
    }
    expect(kept).toBe(2); // the files of a message are kept for its first delivery only
    const items = await store.range<{ id: string }>('inbox:t1');
    expect(items).toHaveLength(2);
    // The same id in another thread is another message.
    expect(await inbox.addOnce({ ...mention, threadKey: 't2' }, 'e', '1700000000.0001', 4)).toMatchObject({ id: 'e' });
  });

  it('hands out each thread’s messages in order, and forgets them once finished', async () => {
    await inbox.add(message('t1', 'first'), 'a');
    await inbox.add(message('t2', 'other thread'), 'b');
    await inbox.add(message('t1', 'second'), 'c');
    expect(await inbox.unfinishedThreads()).toEqual(['t1', 't2']);
    const first = await inbox.next('t1');
    expect(first).toMatchObject({ index: 0, interrupted: false, attempts: 0, item: { id: 'a' } });
    if (!first) throw new Error('no message');
    await inbox.begin('t1', first);
    await inbox.finish('t1', first);
    expect(await inbox.next('t1')).toMatchObject({
      index: 1,
      interrupted: false,
      item: { inbound: { text: 'second' } },
    });
    const other = await inbox.next('t2');
    if (!other) throw new Error('no message');
    await inbox.finish('t2', other);
    expect(await inbox.unfinishedThreads()).toEqual(['t1']);
    expect(await store.get('inbox:all-cursor')).toBe(2); // the finished head is skipped from now on
  });

  it('says a message was interrupted when its turn began and never ended, but not when it was put back', async () => {
    await inbox.add(message('t1', 'work'), 'a');
    const first = await inbox.next('t1');
    if (!first) throw new Error('no message');
    await inbox.begin('t1', first);
    const again = await inbox.next('t1'); // what the next process sees after a crash
    expect(again).toMatchObject({ interrupted: true, attempts: 1 });
    if (!again) throw new Error('no message');
    await inbox.begin('t1', again);
    await inbox.defer('t1', again); // no kernel could start: kept for later, not a restart
    // …and a deferred try does not count towards giving up: only the interrupted one does.
    expect(await inbox.next('t1')).toMatchObject({ interrupted: false, attempts: 1 });
  });

  it('keeps shared files by name only', async () => {
    await inbox.add(
      {
        ...message('t1', 'look'),
        files: [{ name: 'a.csv', mime: 'text/csv', sizeBytes: 3, download: async () => Buffer.from('x,y') }],
      },
      'a',
    );
    expect((await inbox.next('t1'))?.item.inbound.files).toEqual([{ name: 'a.csv', mime: 'text/csv', sizeBytes: 3 }]);
  });

  it('runs a message edited while it waits as edited; an edit after its turn began is "ran"', async () => {
    await inbox.add({ ...message('t1', 'count customers'), messageId: 'm1' }, 'a');
    await inbox.add({ ...message('t1', 'chart churn by contract'), messageId: 'm2' }, 'b');
    expect(await inbox.edit('t1', 'mX', 'never seen')).toBe('unknown');
    const first = await inbox.next('t1');
    if (!first) throw new Error('no message');
    await inbox.begin('t1', first);
    expect(await inbox.edit('t1', 'm1', 'count customers by region')).toBe('ran');
    expect(await inbox.edit('t1', 'm2', 'chart churn by tenure band')).toBe('queued');
    await inbox.finish('t1', first);
    expect(await inbox.edit('t1', 'm1', 'again')).toBe('ran');
    const second = await inbox.next('t1');
    expect(second?.item.inbound.text).toBe('chart churn by tenure band');
    expect(second?.item.id).toBe('b');
  });
});
