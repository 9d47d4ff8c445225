/**
 * Routes inbound messages to their thread's session: one turn per thread at a time (messages that
 * arrive meanwhile wait their turn, none is lost; `stop` cancels the running turn at once), chat
 * commands, code the user runs themselves, and the agent for everything else.
 */
import type { Agent } from '../agent/agent.js';
import { describeSettings, parseSetCommand } from '../agent/settings.js';
import { describeExecution } from '../agent/tools/kernel-tools.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Inbound, Post, ThreadKey } from '../ports/chat.js';
import type { Database } from '../ports/database.js';
import type { Kernel } from '../ports/sandbox.js';
import type { Store } from '../ports/store.js';
import type { SessionKernels } from './session-kernel.js';
import { lockName, newSession, type SessionRecord, sessionKey } from './session-record.js';
import { findUserCode } from './user-code.js';

export interface SessionRouterOptions {
  agent: Agent;
  kernels: SessionKernels;
  databases: Database[];
  store: Store;
  /** Posts to a thread through whichever adapter it came from. */
  post: (threadKey: ThreadKey, post: Post) => Promise<unknown>;
  logger: Logger;
}

const STOP = /^\s*(stop|cancel)\s*[.!]?\s*$/i;

export class SessionRouter {
  private readonly queues = new Map<ThreadKey, Promise<void>>();
  private readonly running = new Map<ThreadKey, AbortController>();

  constructor(private readonly options: SessionRouterOptions) {}

  /** Resolves when this message has been handled (after the turns queued before it). */
  handle(inbound: Inbound): Promise<void> {
    if (STOP.test(inbound.text)) return this.stop(inbound.threadKey);
    const previous = this.queues.get(inbound.threadKey) ?? Promise.resolve();
    const next = previous.then(() =>
      this.options.store.withLock(lockName(inbound.threadKey), () => this.turn(inbound), { ttlMs: 30 * 60_000 }),
    );
    const settled = next.catch((error: unknown) => this.fail(inbound.threadKey, error));
    this.queues.set(inbound.threadKey, settled);
    void settled.finally(() => {
      if (this.queues.get(inbound.threadKey) === settled) this.queues.delete(inbound.threadKey);
    });
    return settled;
  }

  /** Waits for every queued turn. */
  async idle(): Promise<void> {
    await Promise.all(this.queues.values());
  }

  private async stop(threadKey: ThreadKey): Promise<void> {
    const controller = this.running.get(threadKey);
    if (!controller) {
      await this.options.post(threadKey, { kind: 'text', markdown: 'Nothing is running in this thread.' });
      return;
    }
    controller.abort();
  }

  private async turn(inbound: Inbound): Promise<void> {
    const { store, post } = this.options;
    const { threadKey } = inbound;
    const session =
      (await store.get<SessionRecord>(sessionKey(threadKey))) ??
      newSession(threadKey, inbound.user.id, inbound.receivedAt);
    const emit = (message: Post) => post(threadKey, message).then(() => undefined);
    const command = parseSetCommand(inbound.text, session.settings);
    if (command) {
      if ('error' in command) await emit({ kind: 'error', text: command.error });
      else {
        session.settings = command.settings;
        await emit({ kind: 'text', markdown: `Settings: ${describeSettings(session.settings)}` });
      }
      await store.set(sessionKey(threadKey), session);
      return;
    }
    const controller = new AbortController();
    this.running.set(threadKey, controller);
    try {
      const kernel = async () => {
        const restored = await this.options.kernels.acquire(threadKey);
        if (restored.replayed + restored.failed > 0) {
          await emit({
            kind: 'status',
            text: `Restored this session's kernel: ${restored.replayed} steps replayed${restored.failed ? `, ${restored.failed} failed` : ''}.`,
          });
        }
        return restored.kernel;
      };
      const record = async (entry: Parameters<SessionKernels['record']>[1]) => {
        await this.options.kernels.record(threadKey, entry);
      };
      const code = findUserCode(inbound.text);
      if (code) await this.runUserCode(code, kernel, record, emit, controller.signal);
      else {
        await this.options.agent.runTurn({
          text: inbound.text,
          conversation: session.conversation,
          settings: session.settings,
          kernel,
          emit,
          record,
          signal: controller.signal,
        });
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
      await emit({ kind: 'text', markdown: 'Stopped. The session and its variables are kept.' });
    } finally {
      this.running.delete(threadKey);
      await store.set(sessionKey(threadKey), session);
    }
  }

  private async runUserCode(
    code: NonNullable<ReturnType<typeof findUserCode>>,
    kernel: () => Promise<Kernel>,
    record: (entry: Parameters<SessionKernels['record']>[1]) => Promise<void>,
    emit: (post: Post) => Promise<void>,
    signal: AbortSignal,
  ): Promise<void> {
    if (code.language === 'sql') {
      const database = this.options.databases[0];
      if (!database) throw new Error('no database is configured');
      try {
        const result = await database.query(code.code, { maxRows: 50, signal });
        await emit({
          kind: 'table',
          columns: result.columns.map((column) => column.name),
          rows: result.rows,
          truncated: result.truncated,
        });
      } catch (error) {
        if (!(error instanceof AppError) || error.code === 'DATABASE_UNAVAILABLE') throw error;
        await emit({ kind: 'code', language: 'sql', code: code.code, error: error.message });
      }
      return;
    }
    const execution = await (await kernel()).run(code.code, { signal });
    if (!execution.error) await record({ kind: 'python', code: code.code });
    for (const figure of execution.figures)
      await emit({ kind: 'chart', title: 'Figure', png: figure.png, alt: 'chart from your code' });
    const output = describeExecution(execution);
    await emit({
      kind: 'code',
      language: 'python',
      code: code.code,
      ...(execution.error ? { error: output } : { output }),
    });
  }

  private async fail(threadKey: ThreadKey, error: unknown): Promise<void> {
    this.options.logger.error({ err: error, threadKey }, 'turn failed');
    const text =
      error instanceof AppError ? error.message : 'Something went wrong on my side; the details are in the log.';
    await this.options.post(threadKey, { kind: 'error', text }).catch(() => {});
  }
}
