/**
 * Routes inbound messages to their thread's session: one turn per thread at a time (messages that
 * arrive meanwhile wait their turn, none is lost; `stop` cancels the running turn at once), chat
 * commands, review and approval decisions, code the user runs themselves, and the agent for
 * everything else. Everything is written to the session's log.
 */
import type { Agent, Resume } from '../agent/agent.js';
import type { ApprovalMode } from '../agent/approval.js';
import { emptyConversation } from '../agent/conversation.js';
import { describeSettings, parseSetCommand } from '../agent/settings.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Inbound, Post, ThreadKey } from '../ports/chat.js';
import type { Store } from '../ports/store.js';
import { ReportBook } from '../report/report-book.js';
import {
  decidePlaybook,
  draftPlaybookFromReport,
  exportThreadReport,
  type ReportCommandOptions,
} from './report-commands.js';
import { feedbackTarget, handleApproval, handleReview } from './review-desk.js';
import type { SessionKernels } from './session-kernel.js';
import { postEvent, SESSIONS_LIST, SessionLog } from './session-log.js';
import { lockName, newSession, type SessionRecord, sessionKey } from './session-record.js';
import { sessionWorkbench } from './session-workbench.js';
import { receiveFiles } from './shared-files.js';
import { parseThreadCommand } from './thread-command.js';
import { DONE, type Handled, isReviewer, type ThreadContext } from './thread-context.js';
import { findUserCode } from './user-code.js';
import { runUserCode } from './user-code-run.js';

export interface SessionRouterOptions extends ReportCommandOptions {
  agent: Agent;
  kernels: SessionKernels;
  store: Store;
  /** Posts to a thread through whichever adapter it came from. */
  post: (threadKey: ThreadKey, post: Post) => Promise<unknown>;
  /** User ids who may decide on sections and cells in any thread, besides its owner. */
  reviewers: readonly string[];
  /** The approval mode of a thread that has not set one (its channel's default). */
  approvalMode: (threadKey: ThreadKey) => ApprovalMode;
  /** Files people share larger than this are refused. */
  maxUploadBytes: number;
  logger: Logger;
}

const STOP = /^\s*(stop|cancel)\s*[.!]?\s*$/i;

export class SessionRouter {
  private readonly queues = new Map<ThreadKey, Promise<void>>();
  private readonly running = new Map<ThreadKey, AbortController>();

  constructor(private readonly options: SessionRouterOptions) {}

  /** Resolves when this message has been handled (after the turns queued before it). */
  handle(inbound: Inbound): Promise<void> {
    if (STOP.test(inbound.text) && !inbound.action) return this.stop(inbound.threadKey);
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
    const { store } = this.options;
    const { threadKey } = inbound;
    const stored = await store.get<SessionRecord>(sessionKey(threadKey));
    const session = stored ?? newSession(threadKey, inbound.user.id, inbound.receivedAt);
    if (!stored) await store.append(SESSIONS_LIST, threadKey);
    session.conversation = { ...emptyConversation(), ...session.conversation };
    const log = new SessionLog(store, threadKey);
    const emit = async (post: Post) => {
      await this.options.post(threadKey, post);
      const event = postEvent(post);
      if (event) await log.append(event);
    };
    await log.append({
      kind: 'message',
      user: inbound.user.id,
      text: inbound.text,
      ...(inbound.action ? { action: inbound.action } : {}),
    });
    const thread: ThreadContext = {
      inbound,
      session,
      book: new ReportBook(store, threadKey),
      log,
      emit,
      reviewers: this.options.reviewers,
    };
    try {
      const handled = await this.dispatch(thread);
      if (handled.kind !== 'done') await this.work(thread, handled);
    } finally {
      await store.set(sessionKey(threadKey), session);
    }
  }

  /** Settings, report commands and decisions; what is left is work for the agent or the kernel. */
  private async dispatch(thread: ThreadContext): Promise<Handled> {
    const { inbound, session, emit } = thread;
    const set = parseSetCommand(inbound.text, session.settings);
    if (set && !inbound.action) {
      if ('error' in set) await emit({ kind: 'error', text: set.error });
      else {
        session.settings = set.settings;
        await emit({ kind: 'text', markdown: `Settings: ${describeSettings(session.settings)}` });
      }
      return DONE;
    }
    const command = parseThreadCommand(inbound);
    const pending = session.conversation.pending;
    if (command?.kind === 'export') return exportThreadReport(thread, this.options);
    if (command?.kind === 'save-playbook') return draftPlaybookFromReport(thread, this.options, command.title);
    if (command?.kind === 'reset') {
      await this.options.kernels.reset(inbound.threadKey);
      session.conversation.work = { cells: [], figures: [] };
      session.conversation.messages.push({
        role: 'user',
        content: '[The kernel was reset: variables, DataFrames and shared files from before are gone.]',
      });
      await emit({
        kind: 'text',
        markdown: 'Fresh kernel: the variables and files from before are gone. The conversation and the report stay.',
      });
      return DONE;
    }
    if (command?.kind === 'review') {
      const forPlaybook =
        command.section === 'playbook' || (!command.section && session.playbookDraft && !feedbackTarget(thread));
      return forPlaybook ? decidePlaybook(thread, this.options, command.action) : handleReview(thread, command);
    }
    if (pending?.kind === 'approval' && (command?.kind === 'approval' || !findUserCode(inbound.text))) {
      // A reply that is not a decision skips the cell and reaches the model as the user's words.
      return handleApproval(thread, pending, command?.kind === 'approval' ? command : undefined);
    }
    if (command?.kind === 'approval') {
      await emit({ kind: 'text', markdown: 'No cell is waiting for approval.' });
      return DONE;
    }
    const target = feedbackTarget(thread);
    if (target && !findUserCode(inbound.text)) {
      if (!isReviewer(thread)) {
        await emit({
          kind: 'notice',
          userId: inbound.user.id,
          text: `This thread is waiting for a review of ${target.section} by the person who started it or a reviewer.`,
        });
        return DONE;
      }
      return handleReview(thread, { kind: 'review', action: 'revise', ...target, feedback: inbound.text });
    }
    return { kind: 'request', text: inbound.text };
  }

  /** Runs the agent (a request, or a paused turn resuming) or the user's own code. */
  private async work(thread: ThreadContext, handled: Exclude<Handled, { kind: 'done' }>): Promise<void> {
    const { inbound, session, emit } = thread;
    const { threadKey } = inbound;
    const controller = new AbortController();
    this.running.set(threadKey, controller);
    const work = sessionWorkbench({ book: thread.book, conversation: session.conversation, log: thread.log });
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
    try {
      let text = handled.kind === 'request' ? handled.text : inbound.text;
      if (inbound.files?.length) {
        const received = await receiveFiles(inbound.files, {
          threadKey,
          maxBytes: this.options.maxUploadBytes,
          kernel,
          store: this.options.store,
          record,
        });
        for (const line of received.refused) await emit({ kind: 'error', text: `Not taken: ${line}` });
        if (received.delivered.length > 0) {
          const note = `[Shared files, readable in the kernel: ${received.delivered.join(', ')}]`;
          if (text.trim() === '') {
            session.conversation.messages.push({ role: 'user', content: note });
            await emit({ kind: 'text', markdown: `Got it: ${received.delivered.join(', ')}. Ask me about it.` });
            return;
          }
          text = `${text}\n\n${note}`;
        }
        if (text.trim() === '') return;
      }
      const code = handled.kind === 'request' ? findUserCode(text) : undefined;
      if (code) {
        await runUserCode(code, {
          kernel,
          record,
          emit,
          work,
          databases: this.options.databases,
          signal: controller.signal,
        });
        return;
      }
      const resume: Resume | undefined = handled.kind === 'resume' ? handled.resume : undefined;
      await this.options.agent.runTurn({
        text,
        conversation: session.conversation,
        settings: { ...session.settings, approve: session.settings.approve ?? this.options.approvalMode(threadKey) },
        kernel,
        emit,
        record,
        work,
        log: (event) => thread.log.append(event),
        signal: controller.signal,
        ...(resume ? { resume } : {}),
      });
    } catch (error) {
      if (!controller.signal.aborted) throw error;
      await emit({ kind: 'text', markdown: 'Stopped. The session and its variables are kept.' });
    } finally {
      this.running.delete(threadKey);
    }
  }

  private async fail(threadKey: ThreadKey, error: unknown): Promise<void> {
    this.options.logger.error({ err: error, threadKey }, 'turn failed');
    const text =
      error instanceof AppError ? error.message : 'Something went wrong on my side; the details are in the log.';
    await this.options.post(threadKey, { kind: 'error', text }).catch(() => {});
  }
}
