/**
 * `withLock` written once for both stores: line up in-process (LockQueue), then take the shared lock
 * from the backend (Redis or SQLite) by polling with jittered backoff until `waitMs`, keep it alive
 * while the task runs, and give it back even when the task throws.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { LockTimeoutError } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import type { LockOptions } from '../ports/store.js';
import { LockQueue } from './lock-queue.js';

export const DEFAULT_LOCK_TTL_MS = 10 * 60_000;
/** setTimeout's ceiling; longer waits would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const FIRST_POLL_MS = 5;
const MAX_POLL_MS = 100;

/** The shared half of a lock: one row or key per name, owned by a token until it expires. */
export interface LockBackend {
  /** One attempt: true when `token` now owns `name` for `ttlMs`. A refused attempt may queue the token. */
  tryAcquire(name: string, token: string, ttlMs: number): Promise<boolean>;
  /** Pushes the expiry of a lock `token` still owns to `ttlMs` from now; false when it no longer owns it. */
  extend(name: string, token: string, ttlMs: number): Promise<boolean>;
  /** Deletes the lock if `token` still owns it. */
  release(name: string, token: string): Promise<void>;
  /** Forgets a token that gave up waiting. */
  abandon(name: string, token: string): Promise<void>;
  /** The owner token of `name` while it is held. */
  owner(name: string): Promise<string | undefined>;
}

/** Owner tokens say where they were made (`host/pid/uuid`), so a timeout can say who holds the lock. */
export function newOwnerToken(): string {
  return `${hostname()}/${process.pid}/${randomUUID()}`;
}

export function describeOwner(token: string): string {
  const [host, pid] = token.split('/');
  if (host === hostname() && pid === String(process.pid)) return 'another task in this process';
  return `process ${pid} on ${host}`;
}

export class LockRunner {
  private readonly queue = new LockQueue();
  private readonly keepers = new Set<() => void>();

  constructor(
    private readonly backend: LockBackend,
    private readonly logger: Logger,
    /** Adds to a timeout's holder description, e.g. why a second process is not expected. */
    private readonly describeHolder: (token: string) => string = describeOwner,
  ) {}

  async run<T>(name: string, task: () => Promise<T>, options: LockOptions = {}): Promise<T> {
    const ttlMs = options.ttlMs ?? DEFAULT_LOCK_TTL_MS;
    const waitMs = options.waitMs ?? ttlMs;
    if (!(Number.isInteger(ttlMs) && ttlMs > 0 && ttlMs <= MAX_TIMER_MS)) {
      throw new RangeError(`withLock option ttlMs must be a whole number of ms in 1..${MAX_TIMER_MS}, not ${ttlMs}`);
    }
    if (!(Number.isInteger(waitMs) && waitMs >= 0 && waitMs <= MAX_TIMER_MS)) {
      throw new RangeError(`withLock option waitMs must be a whole number of ms in 0..${MAX_TIMER_MS}, not ${waitMs}`);
    }
    const deadline = Date.now() + waitMs;
    const leaveLine = await this.queue.enter(name, waitMs);
    try {
      const token = newOwnerToken();
      await this.acquire(name, token, ttlMs, deadline, waitMs);
      const stopKeeping = this.keepAlive(name, token, ttlMs);
      try {
        return await task();
      } finally {
        stopKeeping();
        await this.backend.release(name, token).catch((error: unknown) => {
          // The lock still expires after ttlMs; failing here would hide the task's own outcome.
          this.logger.warn({ err: error, lock: name }, 'could not release lock; it will expire');
        });
      }
    } finally {
      leaveLine();
    }
  }

  /** Stops keeping locks alive (they expire after their TTL) and rejects every caller still waiting. */
  close(error: Error): void {
    for (const stop of this.keepers) stop();
    this.queue.abandon(error);
  }

  private async acquire(name: string, token: string, ttlMs: number, deadline: number, waitMs: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      if (await this.backend.tryAcquire(name, token, ttlMs)) return;
      const remainingMs = deadline - Date.now();
      if (remainingMs <= 0) {
        await this.backend.abandon(name, token).catch(() => {});
        const owner = await this.backend.owner(name).catch(() => undefined);
        throw new LockTimeoutError(name, waitMs, owner === undefined ? undefined : this.describeHolder(owner));
      }
      const backoffMs = Math.min(MAX_POLL_MS, FIRST_POLL_MS * 2 ** attempt) * (0.5 + Math.random() / 2);
      await sleep(Math.min(remainingMs, Math.ceil(backoffMs)));
    }
  }

  /** Extends the lock every third of its TTL, so a task may run longer than the TTL while it is alive. */
  private keepAlive(name: string, token: string, ttlMs: number): () => void {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const tick = async () => {
      try {
        if (!(await this.backend.extend(name, token, ttlMs))) {
          this.logger.error({ lock: name, ttlMs }, 'lock expired while its task still ran; another holder may have it');
          return;
        }
      } catch (error) {
        this.logger.warn({ err: error, lock: name }, 'could not extend lock; trying again');
      }
      schedule();
    };
    const schedule = () => {
      if (stopped) return;
      // unref: a task that never settles must not keep the process alive through its lock.
      timer = setTimeout(tick, Math.max(1, Math.floor(ttlMs / 3))).unref();
    };
    const stop = () => {
      stopped = true;
      clearTimeout(timer);
      this.keepers.delete(stop);
    };
    this.keepers.add(stop);
    schedule();
    return stop;
  }
}
