/**
 * The retention sweep: what is older than TALLY_RETENTION_DAYS goes (threads whose last turn ended
 * before the cut, with everything they keep; old eval runs, console exports and training exports on
 * disk; the finished head of the inbox's list), and audit records older than
 * TALLY_AUDIT_RETENTION_DAYS. It runs once per period across replicas: the first to take the claim
 * for the period does the work, the others count it as skipped (the schedules' claim, see
 * `schedules/schedule-state.ts`). Work goes in bounded batches, yielding between them, so a sweep
 * never holds the process or the store for long. A thread with a turn running or a message waiting
 * is left for the next sweep.
 *
 * Two things reach beyond the sweeping replica. Other replicas may hold a kernel (and its workspace)
 * of an expired thread: the sweep lists the thread among the forgotten ones, where every replica's
 * watcher finds it (`forgotten-kernels.ts`), and the next sweep trims what the watchers have read.
 * Training exports younger than the cut may hold expired threads: they are written again without
 * them, keeping their age.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { LockTimeoutError } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import type { AuditTrail } from '../ports/audit.js';
import type { ThreadKey } from '../ports/chat.js';
import type { Clock } from '../ports/clock.js';
import type { Metrics } from '../ports/metrics.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { Store } from '../ports/store.js';
import { eraseThread, rememberedPosts } from '../sessions/erase-thread.js';
import { Inbox } from '../sessions/inbox.js';
import { listSessions } from '../sessions/session-log.js';
import { type SessionRecord, sessionKey } from '../sessions/session-record.js';
import type { AuditLog } from '../store/audit-log.js';
import { preferencesPathFor, rewriteTrainingExports, TRAINING_EXPORTS } from '../training/export-training.js';
import { FORGOTTEN_THREADS, FORGOTTEN_THREADS_MARK, type ForgottenThread } from './forgotten-kernels.js';

export interface RetentionOptions {
  /** With `reclaim` (the SQLite store), deleted content is also wiped from the store's own files after a sweep. */
  store: Store & { reclaim?(): Promise<void> };
  auditLog: AuditLog;
  audit: AuditTrail;
  sandbox?: Pick<Sandbox, 'release'>;
  clock: Clock;
  retentionMs: number;
  auditRetentionMs: number;
  /** The period: one sweep per period across replicas. */
  sweepEveryMs: number;
  /** TALLY_HOME: `eval/`, `reports/` and `charts/` in it are swept by age. */
  home: string;
  /** Names this replica in the claim. */
  instance: string;
  /** Threads (and audit records, files) handled per batch. Default 100. */
  batchSize?: number;
  metrics: Metrics;
  logger: Logger;
}

/** What one sweep deleted. */
export interface SweepCounts {
  threads: number;
  auditRecords: number;
  files: number;
  inboxEntries: number;
  /** Training exports written again without the expired threads. */
  trainingExports: number;
}

// In a Redis Cluster: one lock and one claim per period for every replica, each a key on one master (a few calls a period).
const CLAIM_LOCK = 'retention-sweep';
const claimKey = (slot: number) => `retention-claim:${slot}`;
/** Folders of TALLY_HOME whose entries are swept by age. */
const SWEPT_FOLDERS = ['eval', 'reports', 'charts'];

export class RetentionSweeper {
  private cancel: (() => void) | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly options: RetentionOptions) {}

  /**
   * Sweeps if no replica has swept this period yet; undefined when another had (or has) it.
   * The claim outlives the period, so a replica that starts late in it does not sweep again.
   */
  async sweepOnce(): Promise<SweepCounts | undefined> {
    const { store, clock, sweepEveryMs } = this.options;
    const slot = Math.floor(clock.now() / sweepEveryMs);
    try {
      const counts = await store.withLock(
        CLAIM_LOCK,
        async () => {
          if (await store.get(claimKey(slot))) return undefined;
          await store.set(claimKey(slot), { instance: this.options.instance, at: clock.now() }, 2 * sweepEveryMs);
          return this.sweep();
        },
        { waitMs: 0 },
      );
      this.options.metrics.sweepEnded(counts ? 'done' : 'skipped');
      return counts;
    } catch (error) {
      if (error instanceof LockTimeoutError) {
        this.options.metrics.sweepEnded('skipped');
        return undefined;
      }
      this.options.metrics.sweepEnded('failed');
      throw error;
    }
  }

  /** Sweeps now, whatever other replicas did (the claim is `sweepOnce`'s). */
  async sweep(): Promise<SweepCounts> {
    const { clock, metrics } = this.options;
    const now = clock.now();
    const threads = await this.sweepThreads(now - this.options.retentionMs);
    await this.trimForgotten();
    const counts: SweepCounts = {
      threads,
      inboxEntries: await new Inbox(this.options.store).compact(),
      files: await this.sweepFiles(now - this.options.retentionMs),
      auditRecords: await this.sweepAudit(now - this.options.auditRetentionMs),
      // After the files: exports old enough to go are gone, not written again.
      trainingExports: threads > 0 ? await rewriteTrainingExports(this.options.store) : 0,
    };
    if (counts.threads + counts.inboxEntries + counts.auditRecords > 0) await this.options.store.reclaim?.();
    metrics.swept('threads', counts.threads);
    metrics.swept('inbox entries', counts.inboxEntries);
    metrics.swept('files', counts.files);
    metrics.swept('audit records', counts.auditRecords);
    if (counts.threads + counts.files + counts.auditRecords > 0) {
      await this.options.audit.record({
        kind: 'deletion',
        decision: 'allowed',
        deletion: { requestedBy: 'retention', scope: 'retention', target: 'expired', counts: { ...counts } },
      });
    }
    this.options.logger.info({ ...counts }, 'retention sweep done');
    return counts;
  }

  /** Sweeps every period (the first after one period) until `stop`. */
  start(): void {
    const tick = () => {
      this.running = this.sweepOnce()
        .catch((error: unknown) => this.options.logger.warn({ err: error }, 'retention sweep failed'))
        .finally(() => {
          if (this.cancel) this.cancel = this.options.clock.setTimer(this.options.sweepEveryMs, tick);
        });
    };
    this.cancel = this.options.clock.setTimer(this.options.sweepEveryMs, tick);
  }

  async stop(): Promise<void> {
    const cancel = this.cancel;
    this.cancel = undefined;
    cancel?.();
    await this.running;
  }

  private get batchSize(): number {
    return this.options.batchSize ?? 100;
  }

  private async sweepThreads(cutoff: number): Promise<number> {
    const { store } = this.options;
    const waiting = new Set(await new Inbox(store).unfinishedThreads());
    const expired: ThreadKey[] = [];
    for (const threadKey of await listSessions(store)) {
      if (waiting.has(threadKey)) continue;
      const session = await store.get<SessionRecord>(sessionKey(threadKey));
      if (!session || (session.updatedAt ?? session.createdAt) < cutoff) expired.push(threadKey);
    }
    let erased = 0;
    const posts = expired.length > 0 ? await rememberedPosts(store) : new Map<ThreadKey, string[]>();
    for (let start = 0; start < expired.length; start += this.batchSize) {
      for (const threadKey of expired.slice(start, start + this.batchSize)) {
        const done = await eraseThread(threadKey, {
          store,
          skipBusy: true,
          posts,
          ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
        });
        if (!done) continue;
        erased += 1;
        // So the other replicas drop the kernels they hold for it (this one's went with the thread).
        await store.append<ForgottenThread>(FORGOTTEN_THREADS, { threadKey });
      }
      await yieldToOthers();
    }
    return erased;
  }

  /**
   * Drops the forgotten threads listed before the previous sweep: every replica's watcher has read
   * them since (watchers read every few seconds, sweeps come a period apart), and they name threads
   * that are gone. Notes where the list ends now, for the next sweep and for watchers starting up.
   */
  private async trimForgotten(): Promise<void> {
    const { store } = this.options;
    const mark = (await store.get<number>(FORGOTTEN_THREADS_MARK)) ?? 0;
    await store.trim(FORGOTTEN_THREADS, mark);
    const end = mark + (await store.range(FORGOTTEN_THREADS, mark)).length;
    await store.set(FORGOTTEN_THREADS_MARK, end);
  }

  private async sweepAudit(cutoff: number): Promise<number> {
    let dropped = 0;
    for (;;) {
      const batch = await this.options.auditLog.expire(cutoff, this.batchSize);
      dropped += batch;
      if (batch < this.batchSize) return dropped;
      await yieldToOthers();
    }
  }

  /** Entries of the swept folders, and training exports, last changed before the cut. */
  private async sweepFiles(cutoff: number): Promise<number> {
    let removed = 0;
    const removeIfOld = async (path: string) => {
      const info = await stat(path).catch(() => undefined);
      if (!info || info.mtimeMs >= cutoff) return false;
      await rm(path, { recursive: true, force: true });
      removed += 1;
      return true;
    };
    for (const folder of SWEPT_FOLDERS) {
      const entries = await readdir(join(this.options.home, folder)).catch(() => [] as string[]);
      for (const entry of entries) await removeIfOld(join(this.options.home, folder, entry));
    }
    const { store } = this.options;
    for (const path of new Set(await store.range<string>(TRAINING_EXPORTS))) {
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtimeMs >= cutoff) continue;
      if (info) await removeIfOld(path);
      await removeIfOld(preferencesPathFor(path));
      await store.remove(TRAINING_EXPORTS, path);
    }
    return removed;
  }
}
