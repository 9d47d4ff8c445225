import { describe, expect, it } from 'vitest';
import { type AppError, LockTimeoutError } from '../../src/base/errors.js';
import { LockQueue } from '../../src/store/lock-queue.js';

describe('LockQueue', () => {
  it('lets callers in one at a time, in the order they arrived', async () => {
    const queue = new LockQueue();
    const order: number[] = [];
    let inside = 0;
    await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const leave = await queue.enter('thread', 5_000);
        inside++;
        expect(inside).toBe(1);
        order.push(index);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inside--;
        leave();
      }),
    );
    expect(order).toEqual(Array.from({ length: 20 }, (_, index) => index));
  });

  it('keeps separate lines per name', async () => {
    const queue = new LockQueue();
    const leaveA = await queue.enter('a', 0);
    const leaveB = await queue.enter('b', 0);
    leaveA();
    leaveB();
  });

  it('gives up on a waiter after waitMs, and the line moves on without it', async () => {
    const queue = new LockQueue();
    const leaveFirst = await queue.enter('thread', 0);
    const impatient = queue.enter('thread', 20);
    const patient = queue.enter('thread', 5_000);
    const error = await impatient.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as AppError).code).toBe('LOCK_TIMEOUT');
    expect((error as Error).message).toContain("'thread'");
    expect((error as Error).message).toContain('waitMs');
    leaveFirst();
    const leavePatient = await patient;
    leavePatient();
    // The line is empty again: a caller that cannot wait at all gets in.
    (await queue.enter('thread', 0))();
  });

  it('ignores a second leave by the same holder', async () => {
    const queue = new LockQueue();
    const leaveFirst = await queue.enter('thread', 0);
    const second = queue.enter('thread', 5_000);
    leaveFirst();
    const leaveSecond = await second;
    leaveFirst();
    const third = queue.enter('thread', 30);
    await expect(third).rejects.toBeInstanceOf(LockTimeoutError);
    leaveSecond();
  });

  it('rejects the waiters but not the holder when abandoned', async () => {
    const queue = new LockQueue();
    const leaveHolder = await queue.enter('thread', 0);
    const waiting = queue.enter('thread', 5_000);
    queue.abandon(new Error('closed'));
    await expect(waiting).rejects.toThrow('closed');
    leaveHolder();
    (await queue.enter('thread', 0))();
  });
});
