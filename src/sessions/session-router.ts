/**
 * Routes inbound messages to their thread's session. Each message is written to the durable inbox
 * first; then whoever holds the thread's lock (this process, or another replica on the same store)
 * runs the thread's unfinished messages one turn at a time, in arrival order, and marks each done.
 * The lock lives only while its holder renews it, so a dead replica's threads are free within the
 * lock TTL, and `recover()` (at start-up and then periodically) picks up what was left unfinished.
 * `stop` cancels the running turn at once; `shutdown()` stops taking messages, lets running turns
 * finish up to a deadline and leaves the rest in the inbox for the next process; `cancel()` (Ctrl-C
 * in the console) stops every turn at once and keeps nothing for later.
 */
import { randomUUID } from 'node:crypto';
import { AppError, KernelStartError, LockTimeoutError, SandboxEngineUnavailableError } from '../base/errors.js';
import { ACTION_IDS, type Inbound, type ThreadKey } from '../ports/chat.js';
import { SYSTEM_CLOCK } from '../ports/clock.js';
import { type Metrics, NO_METRICS, type TurnEnd } from '../ports/metrics.js';
import { Inbox, type NextMessage } from './inbox.js';
import { type MessageTurnOptions, MessageTurns, TurnInterruptedError } from './message-turn.js';
import { editedKey, lockName } from './session-record.js';
import { keepSharedFiles, keptSharedFile } from './shared-files.js';

export interface SessionRouterOptions extends MessageTurnOptions {
  /** A thread's lock expires this long after its holder stops renewing it, in ms. Default 20 000. */
  lockTtlMs?: number;
  metrics?: Metrics;
}

const STOPPING_TEXT = 'tally is restarting: this goes on as soon as it is back.';
const STOP = /^\s*(stop|cancel)\s*[.!]?\s*$/i;
/** How long a replica waits for a thread another replica is working in (its turns can be long). */
const THREAD_WAIT_MS = 6 * 60 * 60_000;
/** A message whose turn was interrupted this often is given up on, so one bad message cannot loop. */
const MAX_ATTEMPTS = 3;
/** The text of an edit to a message that had run, kept for its Run again button. */

export class SessionRouter {
  private readonly queues = new Map<ThreadKey, Promise<void>>();
  private readonly running = new Map<ThreadKey, AbortController>();
  /** Messages received here, with what the store cannot keep (shared files' downloads). */
  private readonly received = new Map<string, Inbound>();
  private readonly inbox: Inbox;
  private readonly turns: MessageTurns;
  private recovering: NodeJS.Timeout | undefined;
  private stopping = false;
  private cancelled = false;

  constructor(private readonly options: SessionRouterOptions) {
    this.inbox = new Inbox(options.store);
    this.turns = new MessageTurns(options);
  }

  private get metrics(): Metrics {
    return this.options.metrics ?? NO_METRICS;
  }

  private get lockTtlMs(): number {
    return this.options.lockTtlMs ?? 20_000;
  }

  /** Resolves when this message has been handled (after the messages before it in its thread). */
  async handle(received: Inbound): Promise<void> {
    const accepted = await this.accept(received).finally(() => received.received?.());
    if (!accepted) return;
    const { inbound, item } = accepted;
    if (this.stopping) return; // written down: the next process runs it
    this.received.set(item.id, inbound);
    try {
      await this.drain(inbound.threadKey, THREAD_WAIT_MS);
    } finally {
      this.received.delete(item.id);
    }
  }

  /** What a message is before the platform hears it was received: written down, or handled at once, or refused. */
  private async accept(received: Inbound) {
    if (this.cancelled) return undefined;
    if (received.edited) {
      await this.edited(received);
      return undefined;
    }
    const inbound = await this.rerunOf(received);
    if (!inbound) return undefined;
    if (STOP.test(inbound.text) && !inbound.action) {
      await this.stop(inbound.threadKey);
      return undefined;
    }
    // A person's message the platform names is written once however often it is delivered (a click or a rerun is
    // a new message each time).
    const platformId = received.action ? undefined : received.messageId;
    const item = await this.write(inbound, randomUUID(), platformId).catch(async (error: unknown) => {
      await this.fail(inbound.threadKey, error);
      return undefined;
    });
    return item ? { inbound, item } : undefined;
  }

  /** Writes the message down, with the files shared with it, so any replica can run it; undefined for a redelivery. */
  private async write(inbound: Inbound, id: string, platformId: string | undefined) {
    const keepFiles = async () => {
      if (!inbound.files?.length) return;
      const { threadKey } = inbound;
      const { store, maxUploadBytes: maxBytes } = this.options;
      await keepSharedFiles(inbound.files, { threadKey, messageId: id, maxBytes, store });
    };
    const now = (this.options.clock ?? SYSTEM_CLOCK).now();
    if (platformId === undefined) {
      await keepFiles();
      return this.inbox.add(inbound, id, now);
    }
    const item = await this.inbox.addOnce(inbound, id, platformId, now, keepFiles);
    if (!item) this.options.logger.info({ threadKey: inbound.threadKey, platformId }, 'a message delivered again');
    return item;
  }

  /** Whether a turn is running in the thread in this process. */
  isWorking(threadKey: ThreadKey): boolean {
    return this.running.has(threadKey);
  }

  /** Waits for every queued turn. */
  async idle(): Promise<void> {
    await Promise.all(this.queues.values());
  }

  /**
   * Runs the unfinished messages of threads no one is working on: those of a process that died, or
   * that were put back because no kernel could start. Resolves with the threads it took up.
   */
  async recover(): Promise<number> {
    if (this.stopping) return 0;
    const threads = (await this.inbox.unfinishedThreads()).filter((threadKey) => !this.queues.has(threadKey));
    for (const threadKey of threads) void this.drain(threadKey, 0);
    return threads.length;
  }

  /** Calls recover() now and then every `everyMs` (default: the lock TTL) until shutdown. */
  startRecovering(everyMs = this.lockTtlMs): void {
    const sweep = () =>
      this.recover().catch((error: unknown) => this.options.logger.warn({ err: error }, 'inbox recovery failed'));
    void sweep();
    this.recovering = setInterval(sweep, everyMs);
    this.recovering.unref();
  }

  /**
   * Stops taking messages, lets running turns finish for up to `graceMs`, then interrupts the rest:
   * their messages stay unfinished in the inbox and the next process goes on with them.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    clearInterval(this.recovering);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([this.idle(), deadline]);
    clearTimeout(timer);
    for (const controller of this.running.values()) controller.abort(new TurnInterruptedError());
    await this.idle();
  }

  /**
   * Stops at once, for good: running turns are cancelled as `stop` cancels one (each says so and its
   * message is done), and messages that still arrive are dropped rather than written down. What
   * Ctrl-C means in the console: its threads have no one to go on with them, and a chat service on
   * the same store would otherwise pick them up.
   */
  async cancel(): Promise<void> {
    this.cancelled = true;
    this.stopping = true;
    clearInterval(this.recovering);
    for (const controller of this.running.values()) controller.abort();
    await this.idle();
  }

  /**
   * An edited message: if it still waits its turn it runs as edited; if it ran already, the thread
   * is offered to run the edited text (Run again), which is kept until then.
   */
  private async edited(inbound: Inbound): Promise<void> {
    const { threadKey, messageId } = inbound;
    if (!messageId) return;
    const result = await this.inbox.edit(threadKey, messageId, inbound.text);
    if (result !== 'ran') return;
    await this.options.store.set(editedKey(threadKey, messageId), inbound.text);
    await this.options.post(threadKey, { kind: 'rerun', messageId, text: inbound.text });
  }

  /** A click on Run again becomes the edited message, once; anything else is itself. */
  private async rerunOf(inbound: Inbound): Promise<Inbound | undefined> {
    if (inbound.action?.id !== ACTION_IDS.rerun) return inbound;
    const key = editedKey(inbound.threadKey, inbound.action.value);
    const text = await this.options.store.get<string>(key);
    if (text === undefined) {
      await this.options.post(inbound.threadKey, {
        kind: 'text',
        markdown: 'That edit has already run, or I no longer have it: send it again to run it once more.',
      });
      return undefined;
    }
    await this.options.store.delete(key);
    const { action: _, ...rest } = inbound;
    return { ...rest, text };
  }

  private async stop(threadKey: ThreadKey): Promise<void> {
    const controller = this.running.get(threadKey);
    if (!controller) {
      await this.options.post(threadKey, { kind: 'text', markdown: 'Nothing is running in this thread.' });
      return;
    }
    controller.abort();
  }

  /**
   * Queues a run of the thread's unfinished messages behind this process's earlier ones. `waitMs` 0
   * gives up at once when another replica holds the thread (it is working there already).
   */
  private drain(threadKey: ThreadKey, waitMs: number): Promise<void> {
    const previous = this.queues.get(threadKey) ?? Promise.resolve();
    const next = previous.then(() =>
      this.options.store.withLock(lockName(threadKey), () => this.runUnfinished(threadKey), {
        ttlMs: this.lockTtlMs,
        waitMs,
      }),
    );
    const settled = next.catch((error: unknown) => {
      if (error instanceof LockTimeoutError && waitMs === 0) return;
      return this.fail(threadKey, error);
    });
    this.queues.set(threadKey, settled);
    void settled.finally(() => {
      if (this.queues.get(threadKey) === settled) this.queues.delete(threadKey);
    });
    return settled;
  }

  /** Holding the thread's lock: runs its unfinished messages in order until none is left. */
  private async runUnfinished(threadKey: ThreadKey): Promise<void> {
    for (;;) {
      if (this.stopping) return;
      const next = await this.inbox.next(threadKey);
      if (!next) return;
      if (next.attempts >= MAX_ATTEMPTS) {
        await this.options.post(threadKey, {
          kind: 'error',
          text: `I gave up on "${clip(next.item.inbound.text)}": my work on it was interrupted ${next.attempts} times. Send it again if you still need it.`,
        });
        await this.inbox.finish(threadKey, next);
        continue;
      }
      await this.inbox.begin(threadKey, next);
      const end = await this.runOne(threadKey, next);
      if (end === 'done' || end === 'failed') await this.inbox.finish(threadKey, next);
      else {
        if (end === 'deferred') await this.inbox.defer(threadKey, next);
        return;
      }
    }
  }

  private async runOne(threadKey: ThreadKey, next: NextMessage): Promise<TurnEnd> {
    const live = this.received.get(next.item.id);
    // The inbox has the message as last edited.
    const inbound = live ? { ...live, text: next.item.inbound.text } : this.restored(next);
    const controller = new AbortController();
    if (this.cancelled) controller.abort(); // cancel() came while this turn was getting under way
    this.running.set(threadKey, controller);
    const ended = this.metrics.turnStarted();
    let end: TurnEnd = 'done';
    try {
      await this.turns.run(inbound, next.interrupted, controller);
    } catch (error) {
      end = error instanceof TurnInterruptedError ? 'interrupted' : isPassing(error) ? 'deferred' : 'failed';
      if (end === 'interrupted')
        await this.options.post(threadKey, { kind: 'status', text: STOPPING_TEXT }).catch(() => {});
      else await this.fail(threadKey, error, end === 'deferred');
    } finally {
      this.running.delete(threadKey);
      ended(end);
    }
    return end;
  }

  /** A message read back from the store (received by another replica, or before a restart), its files from the store. */
  private restored(next: NextMessage): Inbound {
    const { files, ...inbound } = next.item.inbound;
    if (!files?.length) return inbound;
    const where = { threadKey: inbound.threadKey, messageId: next.item.id, store: this.options.store };
    return { ...inbound, files: files.map((file) => keptSharedFile(file, where)) };
  }

  private async fail(threadKey: ThreadKey, error: unknown, kept = false): Promise<void> {
    this.options.logger.error({ err: error, threadKey }, 'turn failed');
    this.metrics.errorSeen(error instanceof AppError ? error.code : 'UNEXPECTED');
    const said =
      error instanceof AppError ? error.message : 'Something went wrong on my side; the details are in the log.';
    const text = kept ? `${said}\n\nYour message is kept: I will run it as soon as a kernel can start.` : said;
    await this.options.post(threadKey, { kind: 'error', text }).catch(() => {});
  }
}

/** Trouble that passes on its own (no kernel could start now): the message is kept and run later. */
function isPassing(error: unknown): boolean {
  return (error instanceof KernelStartError && error.transient) || error instanceof SandboxEngineUnavailableError;
}

function clip(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
