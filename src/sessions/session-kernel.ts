/**
 * A thread's kernel as the session sees it: acquired lazily, and brought back to the session's
 * state from the journal whenever it is new (first use in this process, after an idle disposal, or
 * after a restart of tally).
 */
import type { Database } from '../ports/database.js';
import type { AcquireOptions, Kernel, Sandbox } from '../ports/sandbox.js';
import type { Store } from '../ports/store.js';
import { type JournalEntry, journalKey, journalStartKey } from './session-record.js';

export interface RestoredKernel {
  kernel: Kernel;
  /** Journal entries replayed now; 0 when the kernel was already the session's. */
  replayed: number;
  failed: number;
}

export class SessionKernels {
  private readonly known = new WeakSet<Kernel>();

  constructor(
    private readonly sandbox: Sandbox,
    private readonly databases: Database[],
    private readonly store: Store,
  ) {}

  /** `databases`: what extractions are replayed from (the sender's, under the access policy); default all. */
  async acquire(
    threadKey: string,
    { databases = this.databases, ...options }: AcquireOptions & { databases?: Database[] } = {},
  ): Promise<RestoredKernel> {
    const kernel = await this.sandbox.acquire(threadKey, options);
    if (this.known.has(kernel)) return { kernel, replayed: 0, failed: 0 };
    this.known.add(kernel);
    let replayed = 0;
    let failed = 0;
    const start = (await this.store.get<number>(journalStartKey(threadKey))) ?? 0;
    for (const entry of await this.store.range<JournalEntry>(journalKey(threadKey), start)) {
      if (await this.replay(kernel, entry, databases)) replayed += 1;
      else failed += 1;
    }
    return { kernel, replayed, failed };
  }

  /**
   * A fresh kernel for the thread: the current one is disposed and the journal so far is no longer
   * replayed (it stays in the store: lists are append-only).
   */
  async reset(threadKey: string): Promise<void> {
    const length = (await this.store.range<JournalEntry>(journalKey(threadKey))).length;
    await this.store.set(journalStartKey(threadKey), length);
    const kernel = await this.sandbox.acquire(threadKey);
    await kernel.dispose();
  }

  record(threadKey: string, entry: JournalEntry): Promise<number> {
    return this.store.append(journalKey(threadKey), entry);
  }

  private async replay(kernel: Kernel, entry: JournalEntry, databases: Database[]): Promise<boolean> {
    if (entry.kind === 'python') return (await kernel.run(entry.code)).error === undefined;
    if (entry.kind === 'file') {
      const data = await this.store.get<string>(entry.key);
      if (data === undefined) return false;
      await kernel.writeFile(entry.path, Buffer.from(data, 'base64'));
      return true;
    }
    const database = databases.find((candidate) => candidate.name === entry.database);
    if (!database) return false;
    try {
      await database.extract(entry.sql, kernel, entry.name, { replay: true });
      return true;
    } catch {
      return false;
    }
  }
}
