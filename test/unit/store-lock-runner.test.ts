/**
 * LockRunner against an in-memory backend that keeps the same rules as the Redis and SQLite ones
 * (one owner per name until its expiry), to pin down retries, keep-alive and release.
 */
import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { LockTimeoutError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { describeOwner, type LockBackend, LockRunner, newOwnerToken } from '../../src/store/lock-runner.js';

class MemoryLockBackend implements LockBackend {
  readonly locks = new Map<string, { token: string; expires: number }>();
  calls = { tryAcquire: 0, extend: 0, release: 0, abandon: 0 };
  failRelease = false;

  async tryAcquire(name: string, token: string, ttlMs: number): Promise<boolean> {
    this.calls.tryAcquire++;
    const held = this.locks.get(name);
    if (held && held.expires > Date.now()) return false;
    this.locks.set(name, { token, expires: Date.now() + ttlMs });
    return true;
  }

  async extend(name: string, token: string, ttlMs: number): Promise<boolean> {
    this.calls.extend++;
    const held = this.locks.get(name);
    if (held?.token !== token || held.expires <= Date.now()) return false;
    held.expires = Date.now() + ttlMs;
    return true;
  }

  async release(name: string, token: string): Promise<void> {
    this.calls.release++;
    if (this.failRelease) throw new Error('backend down');
    if (this.locks.get(name)?.token === token) this.locks.delete(name);
  }

  async abandon(): Promise<void> {
    this.calls.abandon++;
  }

  async owner(name: string): Promise<string | undefined> {
    const held = this.locks.get(name);
    return held && held.expires > Date.now() ? held.token : undefined;
  }
}

function recordingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', destination }), lines };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('LockRunner', () => {
  it('returns what the task returns and frees the lock', async () => {
    const backend = new MemoryLockBackend();
    const runner = new LockRunner(backend, recordingLogger().logger);
    expect(await runner.run('thread', async () => 42)).toBe(42);
    expect(backend.locks.size).toBe(0);
  });

  it('frees the lock when the task throws, and rethrows the task error', async () => {
    const backend = new MemoryLockBackend();
    const runner = new LockRunner(backend, recordingLogger().logger);
    await expect(
      runner.run('thread', async () => {
        throw new Error('task failed');
      }),
    ).rejects.toThrow('task failed');
    expect(backend.locks.size).toBe(0);
    expect(await runner.run('thread', async () => 'again', { waitMs: 0 })).toBe('again');
  });

  it('does not let a failed release hide the result, and logs it', async () => {
    const backend = new MemoryLockBackend();
    backend.failRelease = true;
    const { logger, lines } = recordingLogger();
    const runner = new LockRunner(backend, logger);
    expect(await runner.run('thread', async () => 'done')).toBe('done');
    expect(lines.map((line) => line.msg)).toContain('could not release lock; it will expire');
  });

  it('polls until a lock held elsewhere expires', async () => {
    const backend = new MemoryLockBackend();
    backend.locks.set('thread', { token: 'elsewhere/1/x', expires: Date.now() + 150 });
    const runner = new LockRunner(backend, recordingLogger().logger);
    expect(await runner.run('thread', async () => 'mine', { waitMs: 5_000 })).toBe('mine');
    expect(backend.calls.tryAcquire).toBeGreaterThan(1);
  });

  it('times out with the holder named, and forgets the waiter', async () => {
    const backend = new MemoryLockBackend();
    backend.locks.set('thread', { token: 'db-host/4242/x', expires: Date.now() + 60_000 });
    const runner = new LockRunner(backend, recordingLogger().logger);
    const error = await runner.run('thread', async () => 'never', { waitMs: 50 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as Error).message).toContain("Lock 'thread' is still held by process 4242 on db-host");
    expect((error as Error).message).toContain('waitMs');
    expect(backend.calls.abandon).toBe(1);
  });

  it('tries exactly once when waitMs is 0', async () => {
    const backend = new MemoryLockBackend();
    backend.locks.set('thread', { token: 'elsewhere/1/x', expires: Date.now() + 60_000 });
    const runner = new LockRunner(backend, recordingLogger().logger);
    await expect(runner.run('thread', async () => 1, { waitMs: 0 })).rejects.toBeInstanceOf(LockTimeoutError);
    expect(backend.calls.tryAcquire).toBe(1);
  });

  it('keeps the lock alive while a task runs past its TTL', async () => {
    const backend = new MemoryLockBackend();
    const runner = new LockRunner(backend, recordingLogger().logger);
    const other = new LockRunner(backend, recordingLogger().logger);
    let release!: () => void;
    const running = runner.run('thread', () => new Promise<void>((resolve) => (release = resolve)), { ttlMs: 60 });
    await vi.waitFor(() => expect(backend.locks.size).toBe(1));
    // Four TTLs later, the holder has extended it and a second runner still cannot get in.
    await expect(other.run('thread', async () => 1, { waitMs: 240 })).rejects.toBeInstanceOf(LockTimeoutError);
    expect(backend.calls.extend).toBeGreaterThanOrEqual(3);
    release();
    await running;
    expect(await other.run('thread', async () => 'after', { waitMs: 0 })).toBe('after');
  });

  it('logs an error when the lock was lost while the task ran', async () => {
    const backend = new MemoryLockBackend();
    const { logger, lines } = recordingLogger();
    const runner = new LockRunner(backend, logger);
    await runner.run(
      'thread',
      async () => {
        backend.locks.set('thread', { token: 'thief/1/x', expires: Date.now() + 60_000 });
        await sleep(100);
      },
      { ttlMs: 30 },
    );
    expect(lines.find((line) => line.level === 50)?.msg).toMatch(/lock expired while its task still ran/);
    // The release compared tokens and left the other owner's lock alone.
    expect(backend.locks.get('thread')?.token).toBe('thief/1/x');
  });

  it('stops keeping locks alive and rejects waiters on close', async () => {
    const backend = new MemoryLockBackend();
    const runner = new LockRunner(backend, recordingLogger().logger);
    void runner.run('thread', () => new Promise(() => {}), { ttlMs: 60 });
    await vi.waitFor(() => expect(backend.locks.size).toBe(1));
    const waiting = runner.run('thread', async () => 1);
    runner.close(new Error('store closed'));
    await expect(waiting).rejects.toThrow('store closed');
    const extends_ = backend.calls.extend;
    await sleep(150);
    expect(backend.calls.extend).toBe(extends_);
    expect(await backend.owner('thread')).toBeUndefined();
  });

  it('refuses TTLs and waits that are not whole, positive milliseconds', async () => {
    const runner = new LockRunner(new MemoryLockBackend(), recordingLogger().logger);
    await expect(runner.run('thread', async () => 1, { ttlMs: 0 })).rejects.toThrow(/ttlMs/);
    await expect(runner.run('thread', async () => 1, { ttlMs: 1.5 })).rejects.toThrow(/ttlMs/);
    await expect(runner.run('thread', async () => 1, { waitMs: -1 })).rejects.toThrow(/waitMs/);
    await expect(runner.run('thread', async () => 1, { ttlMs: 2 ** 31 })).rejects.toThrow(/ttlMs/);
  });

  it('describes owner tokens by process and host', () => {
    expect(describeOwner(newOwnerToken())).toBe('another task in this process');
    expect(describeOwner('worker-2/77/abc')).toBe('process 77 on worker-2');
  });
});
