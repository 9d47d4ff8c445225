/**
 * One inbound message's turn in its thread: the session is loaded, the message logged, chat
 * commands, review and approval decisions handled (dispatch-message.ts), shared files taken
 * (take-shared-files.ts), code the user runs themselves run, and the agent run for everything else,
 * with the thread's kernel held for the turn (turn-kernel.ts); the session is saved as the turn goes
 * (after every tool call) and at its end. A turn that was interrupted (tally died or was stopped
 * meanwhile) goes on from the last save.
 */
import type { Agent } from '../agent/agent.js';
import type { ApprovalMode } from '../agent/approval.js';
import { emptyConversation } from '../agent/conversation.js';
import { widenGrants } from '../agent/derived-access.js';
import type { Offer } from '../agent/derived-offer.js';
import { keepEvidence, keepParameters } from '../agent/grounding/thread-evidence.js';
import type { Resume } from '../agent/turn-request.js';
import type { Logger } from '../base/logger.js';
import type { AccessControl, Reader } from '../ports/access.js';
import { type AuditTrail, NO_AUDIT } from '../ports/audit.js';
import { type Budgets, budgetRefusal } from '../ports/budget.js';
import type { Inbound, Post, ThreadKey } from '../ports/chat.js';
import { type Clock, SYSTEM_CLOCK } from '../ports/clock.js';
import type { Database } from '../ports/database.js';
import type { Store } from '../ports/store.js';
import { type ActiveSpan, NO_TRACING, type Tracing } from '../ports/tracing.js';
import { ReportBook } from '../report/report-book.js';
import { dispatchMessage } from './dispatch-message.js';
import type { QueryProposalOptions } from './query-proposals.js';
import type { ReportCommandOptions } from './report-commands.js';
import { userSessionsKey } from './session-directory.js';
import type { SessionKernels } from './session-kernel.js';
import { postEvent, SESSIONS_LIST, SessionLog } from './session-log.js';
import { newSession, type SessionRecord, sessionKey } from './session-record.js';
import { sessionWorkbench } from './session-workbench.js';
import { takeSharedFiles } from './take-shared-files.js';
import type { Handled, ThreadContext } from './thread-context.js';
import { offeredEvent } from './thread-derivation.js';
import { actorOf } from './turn-actor.js';
import { turnKernel } from './turn-kernel.js';
import { turnAttributes } from './turn-span.js';
import { findUserCode } from './user-code.js';
import { runUserCode } from './user-code-run.js';

export interface MessageTurnOptions extends ReportCommandOptions, QueryProposalOptions {
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
  /** Profile shared files in the kernel and list them in the prompts. Default true. */
  profileFiles?: boolean;
  /** Who may read what (the access policy); absent: everyone reads every configured database. */
  access?: AccessControl;
  /** Where data access and model requests are recorded. Default: nowhere. */
  audit?: AuditTrail;
  /** Daily budgets, checked before the agent or the kernel works for someone. Default: unlimited. */
  budgets?: Budgets;
  /** Who the console, `ask`, `eval` (threads not from Slack or Discord) work for. Default `console`. */
  consoleUser?: string;
  /** When turns end (sessions' `updatedAt`, which retention goes by). Default the system's. */
  clock?: Clock;
  /** Each message's turn is a span, with the model requests, tool calls and decisions in it. Default: none. */
  tracing?: Tracing;
  logger: Logger;
}

/** The reason a turn is aborted when tally stops: the message stays unfinished, to go on later. */
export class TurnInterruptedError extends Error {
  constructor() {
    super('tally is stopping; the turn goes on when it is back');
  }
}

export const RESTARTED_TEXT = 'tally restarted while working on this; continuing.';

export class MessageTurns {
  private readonly audit: AuditTrail;
  private readonly clock: Clock;
  private readonly tracing: Tracing;

  constructor(private readonly options: MessageTurnOptions) {
    this.audit = options.audit ?? NO_AUDIT;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.tracing = options.tracing ?? NO_TRACING;
  }

  /**
   * Runs the turn of `inbound`; `interrupted` says a turn on it began before and never finished.
   * Aborting `controller` stops it (with TurnInterruptedError as the reason, it is left unfinished).
   * Everything it does is recorded on behalf of the sender.
   */
  run(inbound: Inbound, interrupted: boolean, controller: AbortController): Promise<void> {
    const actor = actorOf(inbound, this.options.consoleUser);
    return this.tracing.span('tally.turn', turnAttributes(inbound, actor, interrupted), (span) =>
      this.audit.within(actor, () => this.turn(inbound, interrupted, controller, span)),
    );
  }

  private async turn(
    inbound: Inbound,
    interrupted: boolean,
    controller: AbortController,
    span: ActiveSpan,
  ): Promise<void> {
    const { store } = this.options;
    const { threadKey } = inbound;
    const stored = await store.get<SessionRecord>(sessionKey(threadKey));
    const session = stored ?? newSession(threadKey, inbound.user.id, inbound.receivedAt);
    if (!stored) {
      await store.append(SESSIONS_LIST, threadKey);
      await store.append(userSessionsKey(inbound.user.id), threadKey);
    }
    session.conversation = { ...emptyConversation(), ...session.conversation };
    const log = new SessionLog(store, threadKey);
    const emit = async (post: Post) => {
      await this.options.post(threadKey, post);
      const event = postEvent(post);
      if (event) await log.append(event);
    };
    if (interrupted) await emit({ kind: 'text', markdown: RESTARTED_TEXT });
    else {
      await log.append({
        kind: 'message',
        user: inbound.user.id,
        text: inbound.text,
        ...(inbound.action ? { action: inbound.action } : {}),
      });
    }
    const granted = await this.databasesFor(inbound, session, emit);
    if (!granted) {
      session.updatedAt = this.clock.now();
      await store.set(sessionKey(threadKey), session);
      return;
    }
    const { databases, reader } = granted;
    const thread: ThreadContext = {
      inbound,
      session,
      book: new ReportBook(store, threadKey),
      log,
      emit,
      reviewers: this.options.reviewers,
      databases,
      store,
      audit: this.audit,
      tracing: this.tracing,
      ...(reader ? { reader } : {}),
    };
    let stopping = false;
    try {
      // Interrupted inside the agent's loop: go on from the last save rather than start over.
      const handled: Handled =
        interrupted && session.conversation.inTurn
          ? { kind: 'resume', resume: { kind: 'continue' } }
          : await dispatchMessage(thread, this.options);
      span.set({ 'tally.turn.handled': handled.kind });
      if (handled.kind !== 'done' && (interrupted || (await this.withinBudget(thread)))) {
        if (handled.kind === 'request') session.request ??= handled.text;
        await this.work(thread, handled, controller);
      }
    } catch (error) {
      stopping = error instanceof TurnInterruptedError;
      throw error;
    } finally {
      if (!stopping) delete session.conversation.inTurn;
      session.updatedAt = this.clock.now();
      await store.set(sessionKey(threadKey), session);
    }
  }

  /**
   * The databases this message's sender may read here, each enforcing the policy and recording in the session
   * what it read, and what they may read (under a policy); undefined (the thread told why) when they may not work
   * in this thread at all.
   */
  private async databasesFor(
    inbound: Inbound,
    session: SessionRecord,
    emit: (post: Post) => Promise<void>,
  ): Promise<{ databases: Database[]; reader?: Reader } | undefined> {
    const { access } = this.options;
    if (!access) return { databases: this.options.databases.map((database) => this.audit.watch(database)) };
    // Widened, not replaced: the session may hold grants of what was offered to it too (a derived playbook).
    const granted = access.forMessage(inbound, session.grantsUsed, async (used) => {
      session.grantsUsed = widenGrants(session.grantsUsed, used);
    });
    if ('refusal' in granted) {
      await this.audit.record({ kind: 'message', decision: 'refused', reason: 'access policy', rule: granted.refusal });
      await emit({ kind: 'text', markdown: granted.refusal });
      return undefined;
    }
    return { databases: granted.databases.map((database) => this.audit.watch(database)), reader: granted.reader };
  }

  /**
   * Audits an offer to the sender; under a policy, the thread now holds what a derived one quotes, so it takes on
   * its grants (a person lacking them may not go on with the thread).
   */
  private async offered(thread: ThreadContext, offer: Offer): Promise<void> {
    const grants = offer.derivedFrom?.grantsUsed;
    if (thread.reader && grants) thread.session.grantsUsed = widenGrants(thread.session.grantsUsed, grants);
    await this.audit.record(offeredEvent(offer));
  }

  /** Whether the sender has budget left for work; if not, the thread is told which ran out and when it resets. */
  private async withinBudget(thread: ThreadContext): Promise<boolean> {
    const verdict = (await this.options.budgets?.check(thread.inbound)) ?? { ok: true };
    if (verdict.ok) return true;
    await this.audit.record({ kind: 'message', decision: 'refused', reason: 'budget', rule: verdict.resource });
    await thread.emit({ kind: 'text', markdown: budgetRefusal(verdict, this.clock.now()) });
    return false;
  }

  /** Runs the agent (a request, or a paused turn resuming) or the user's own code. */
  private async work(
    thread: ThreadContext,
    handled: Exclude<Handled, { kind: 'done' }>,
    controller: AbortController,
  ): Promise<void> {
    const { inbound, session, emit } = thread;
    const { threadKey } = inbound;
    const work = sessionWorkbench({ book: thread.book, conversation: session.conversation, log: thread.log });
    const { kernel, release } = turnKernel({
      kernels: this.options.kernels,
      threadKey,
      databases: thread.databases,
      emit,
    });
    const record = async (entry: Parameters<SessionKernels['record']>[1]) => {
      await this.options.kernels.record(threadKey, entry);
    };
    try {
      let text = handled.kind === 'request' ? handled.text : inbound.text;
      const continuing = handled.kind === 'resume' && handled.resume.kind === 'continue';
      if (inbound.files?.length && !continuing) {
        const taken = await takeSharedFiles(inbound.files, text, {
          threadKey,
          maxBytes: this.options.maxUploadBytes,
          kernel,
          store: this.options.store,
          record,
          audit: this.audit,
          conversation: session.conversation,
          emit,
          profileFiles: this.options.profileFiles !== false,
        });
        if (taken === undefined) return;
        text = taken;
      }
      const code = handled.kind === 'request' ? findUserCode(text) : undefined;
      if (code) {
        await runUserCode(code, {
          kernel,
          record,
          emit,
          work,
          databases: thread.databases,
          signal: controller.signal,
          keep: (source) => {
            keepEvidence(session.conversation, source);
            keepParameters(session.conversation, source.code);
          },
        });
        return;
      }
      const resume: Resume | undefined = handled.kind === 'resume' ? handled.resume : undefined;
      await this.options.agent.runTurn({
        text,
        userId: inbound.user.id,
        databases: thread.databases,
        ...(thread.reader ? { reader: thread.reader } : {}),
        onOffered: (offer) => this.offered(thread, offer),
        conversation: session.conversation,
        settings: { ...session.settings, approve: session.settings.approve ?? this.options.approvalMode(threadKey) },
        kernel,
        emit,
        record,
        work,
        log: (event) => thread.log.append(event),
        checkpoint: () => this.options.store.set(sessionKey(threadKey), session),
        signal: controller.signal,
        ...(resume ? { resume } : {}),
      });
    } catch (error) {
      if (!controller.signal.aborted) throw error;
      if (controller.signal.reason instanceof TurnInterruptedError) throw controller.signal.reason;
      await emit({ kind: 'text', markdown: 'Stopped. The session and its variables are kept.' });
    } finally {
      release();
    }
  }
}
