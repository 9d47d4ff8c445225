/** Ordered, paced, retried delivery per channel. */
import { describe, expect, it } from 'vitest';
import { ChannelQueue } from '../../adapters/common/channel-queue.js';

class Transient extends Error {}

describe('ChannelQueue', () => {
  it('runs a channel in order, retries transient failures before going on, and does not block other channels', async () => {
    const queue = new ChannelQueue({
      minIntervalMs: 0,
      retryDelayMs: 1,
      isTransient: (error) => error instanceof Transient,
    });
    const order: string[] = [];
    let failures = 2;
    const flaky = queue.run('C1', async () => {
      if (failures-- > 0) throw new Transient('429');
      order.push('C1:first');
    });
    const second = queue.run('C1', async () => order.push('C1:second'));
    const other = queue.run('C2', async () => order.push('C2:only'));
    await Promise.all([flaky, second, other]);
    expect(order.filter((entry) => entry.startsWith('C1'))).toEqual(['C1:first', 'C1:second']);
    expect(order).toContain('C2:only');
  });

  it('gives up on errors that are not transient, and the next task still runs', async () => {
    const queue = new ChannelQueue({ minIntervalMs: 0, isTransient: () => false });
    const failed = queue.run('C1', async () => {
      throw new Error('channel_not_found');
    });
    await expect(failed).rejects.toThrow('channel_not_found');
    await expect(queue.run('C1', async () => 'next')).resolves.toBe('next');
  });

  it('keeps tasks of a channel apart by the minimum interval, and backs off between retries', async () => {
    let clock = 1_000;
    const waits: number[] = [];
    const queue = new ChannelQueue({
      minIntervalMs: 1000,
      retryDelayMs: 200,
      isTransient: () => true,
      now: () => clock,
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    });
    let failures = 1;
    await queue.run('C1', async () => {
      clock += 100; // the first post takes 100 ms
    });
    await queue.run('C1', async () => {
      if (failures-- > 0) throw new Error('ratelimited');
    });
    await queue.run('C2', async () => {}); // another channel does not wait
    expect(waits).toEqual([900, 200, 800]);
  });

  it('lets a reader wait until what was queued for a channel has gone out', async () => {
    const queue = new ChannelQueue({ minIntervalMs: 0, isTransient: () => false });
    let release: () => void = () => {};
    const done: string[] = [];
    void queue.run('C1', () => new Promise<void>((resolve) => (release = resolve)).then(() => void done.push('sent')));
    const drained = queue.drained('C1').then(() => done.push('read'));
    await queue.drained('C2'); // another channel has nothing under way
    release();
    await drained;
    expect(done).toEqual(['sent', 'read']);
  });
});
