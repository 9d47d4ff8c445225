/**
 * The agent and one turn of it: the request's context (turn-context.ts: schema, shared files, knowledge), then the
 * request opened (open-request.ts: playbook, the request's messages) or a paused call resumed (resume-paused-call.ts),
 * then the tool loop that does the work, and what the thread is told at the end. Speaks only through posts.
 */
import type { Logger } from '../base/logger.js';
import type { Database } from '../ports/database.js';
import type { Knowledge } from '../ports/knowledge.js';
import type { ChatMessage, CompletionParams, LlmClient } from '../ports/llm.js';
import { NO_TRACING, type Tracing } from '../ports/tracing.js';
import { gated } from './approval.js';
import { fitToBudget } from './context-budget.js';
import { offersOf } from './derived-offer.js';
import { finishTurn, type TurnOutcome } from './finish-turn.js';
import { figureReview } from './grounding/figure-review.js';
import { DEFAULT_APPROX } from './grounding/ground-figures.js';
import { keepGiven, keepToolResult } from './grounding/thread-evidence.js';
import { answerInterruptedCalls } from './interrupted-calls.js';
import {
  clarifyRequest,
  guidanceFor,
  isTriageCall,
  type OpenRequestOptions,
  OUT_OF_SCOPE_TEXT,
  openRequest,
} from './open-request.js';
import type { Playbook } from './playbooks.js';
import { resumePausedCall } from './resume-paused-call.js';
import { runToolLoop, toolSpecs } from './run-tool-loop.js';
import type { AgentSettings } from './settings.js';
import type { Stage, StagePrompts } from './stage-prompts.js';
import { afterFailures, afterMs, afterSteps, afterTokens, whenAsked } from './stop-conditions.js';
import type { AgentTool, ToolContext } from './tool.js';
import { tracedToolCall } from './traced-tool-call.js';
import { triageTool } from './triage.js';
import { turnContext } from './turn-context.js';
import { planSteps, TurnProgressTracker } from './turn-progress.js';
import type { TurnRequest } from './turn-request.js';
import { turnTools } from './turn-tools.js';

export interface AgentOptions {
  llm: LlmClient;
  databases: Database[];
  prompts: StagePrompts;
  /** Model per stage from the config (LLM_MODEL_<STAGE>). */
  stageModels?: Record<string, string>;
  logger: Logger;
  /** Model calls per turn at most. Default 30. */
  maxSteps?: number;
  /** Failed runs of the same step before the agent gives up. Default 3. */
  maxRepairs?: number;
  /** Tokens per turn at most. Default 400,000. */
  maxTokens?: number;
  /** Wall clock per turn at most. Default 20 minutes. */
  maxTurnMs?: number;
  /** Tokens of history sent to the model; older turns are summarised beyond it. Default 48,000. */
  contextTokens?: number;
  /** The organisation's prior analysis methods; the best match for a request is followed. */
  playbooks?: Playbook[];
  /** Approval mode `risky`: extractions estimated above this many rows ask first. Default 1,000,000. */
  extractBudgetRows?: number;
  /** How far (relative) a figure the text calls approximate may be from a result. Default 0.05. */
  groundingApprox?: number;
  /** What the organisation knows about its databases: definitions, joins, verified queries. Default none. */
  knowledge?: Knowledge;
  /** Spans for the turn's tool calls (OTEL_EXPORTER_OTLP_ENDPOINT). Default none. */
  tracing?: Tracing;
}

export class Agent {
  constructor(private readonly options: AgentOptions) {}

  /** The playbooks the agent follows. */
  get playbooks(): Playbook[] {
    return this.options.playbooks ?? [];
  }

  /** Follows a playbook from now on (one saved from an accepted report), replacing one of the same file name. */
  addPlaybook(playbook: Playbook): void {
    const others = (this.options.playbooks ?? []).filter((candidate) => candidate.file !== playbook.file);
    this.options.playbooks = [...others, playbook];
  }

  /** Uses this knowledge from now on (the store reloaded after a verified query was saved). */
  useKnowledge(knowledge: Knowledge): void {
    this.options.knowledge = knowledge;
  }

  /** Stops following the playbook of that file name (its file was deleted on request). */
  dropPlaybook(file: string): void {
    this.options.playbooks = (this.options.playbooks ?? []).filter((candidate) => candidate.file !== file);
  }

  async runTurn(request: TurnRequest): Promise<TurnOutcome> {
    const progress = new TurnProgressTracker(request.emit, request.userId, request.conversation.plan?.steps);
    try {
      const outcome = await this.work(request, progress);
      await progress.end(outcome === 'asked' ? 'paused' : outcome === 'answered' ? 'answered' : 'failed');
      return outcome;
    } catch (error) {
      await progress.end('failed').catch(() => {});
      throw error;
    } finally {
      const { plan } = request.conversation;
      if (plan) plan.steps = progress.plan;
    }
  }

  private async work(request: TurnRequest, progress: TurnProgressTracker): Promise<TurnOutcome> {
    const { conversation, settings, emit } = request;
    const { databases, knowledge, known, system, found, schema } = await turnContext(request, this.options);
    for (const offer of offersOf(known)) await request.onOffered?.(offer);
    const queries = knowledge?.offersQueries(databases.map((database) => database.name)) ?? false;
    const tools = this.tools(settings, schema, queries, this.options.databases.length === 1).map((tool) =>
      gated(tool, { mode: settings.approve, extractBudgetRows: this.options.extractBudgetRows ?? 1_000_000 }),
    );
    if (request.resume?.kind !== 'continue') keepGiven(conversation, request.text);
    const reviewFigures = figureReview({
      conversation,
      enabled: settings.grounding === 'on',
      approx: this.options.groundingApprox ?? DEFAULT_APPROX,
      log: request.log,
    });
    const context: ToolContext = {
      kernel: request.kernel,
      databases,
      emit,
      signal: request.signal,
      work: request.work,
      author: 'model',
      record: request.record,
      reviewFigures,
      ...(knowledge ? { knowledge } : {}),
    };
    const pending = conversation.pending;
    delete conversation.pending;
    let plan = conversation.plan?.text ?? '';
    const opening: OpenRequestOptions = {
      llm: this.options.llm,
      prompts: this.options.prompts,
      logger: this.options.logger,
      playbooks: this.options.playbooks ?? [],
      databases: this.options.databases,
      params: (stage) => this.params(stage, settings),
    };
    // Which playbook is followed is said once the work starts: not before a question or a decline of triage's.
    let notice: string | undefined;
    const announce = async () => {
      if (notice) await emit({ kind: 'text', markdown: notice });
      notice = undefined;
    };
    const prefix = { system, tools: toolSpecs(tools) };
    /** What a multi-step request follows, found after `messages`: the plan becomes the turn's. */
    const follow = async (messages: ChatMessage[]): Promise<string[]> => {
      const guidance = await guidanceFor(request, prefix, opening, messages);
      notice = guidance.notice;
      if (guidance.plan) {
        plan = guidance.plan;
        conversation.plan = { text: plan, steps: [] };
        if (conversation.inTurn) conversation.inTurn.plan = plan;
        await progress.setPlan(planSteps(plan));
      }
      return guidance.messages;
    };
    const resumes =
      (request.resume?.kind === 'continue' && conversation.inTurn) || (pending && pending.kind !== 'triage');
    // Before the turn's first request: a new request's message is not in the history yet, so one turn fewer is kept.
    await this.fitHistory(conversation.messages, settings, request.signal, resumes ? 2 : 1);
    if (request.resume?.kind === 'continue' && conversation.inTurn) {
      plan = conversation.inTurn.plan;
      answerInterruptedCalls(conversation.messages);
    } else if (pending?.kind === 'review' || pending?.kind === 'approval' || pending?.kind === 'tool') {
      const toolNamed = (name: string) => this.tools(settings, '', true).find((candidate) => candidate.name === name);
      const resumed = () => resumePausedCall(pending, request, context, toolNamed);
      // A held call that runs now (approved, edited) is a tool call of this turn, with its SQL and cell under it.
      const content =
        pending.kind === 'approval'
          ? (
              await tracedToolCall(
                this.options.tracing ?? NO_TRACING,
                { id: pending.callId, name: pending.tool, arguments: pending.arguments },
                async () => ({ content: await resumed() }),
              )
            ).content
          : await resumed();
      conversation.messages.push({ role: 'tool', toolCallId: pending.callId, content });
      if (pending.kind === 'tool' && isTriageCall(conversation.messages, pending.callId)) {
        await clarifyRequest(request, pending);
        if (pending.multiStep && settings.decompose !== 'on') {
          for (const message of await follow(conversation.messages)) {
            conversation.messages.push({ role: 'user', content: message });
          }
        }
      }
    } else {
      const opened = await openRequest(request, pending, { ...prefix, found }, opening);
      ({ plan, notice } = opened);
      if (plan) conversation.plan = { text: plan, steps: [] };
      else delete conversation.plan;
      await progress.setPlan(planSteps(plan));
    }
    // Triage found the request multi-step: what it follows is found for the history before triage's reply.
    if (settings.decompose !== 'on') {
      context.guidance = () =>
        follow(
          conversation.messages.slice(
            0,
            conversation.messages.findLastIndex((m) => m.role === 'assistant'),
          ),
        );
    }
    conversation.inTurn = { plan };
    await request.checkpoint?.();
    const result = await runToolLoop({
      llm: this.options.llm,
      system,
      messages: conversation.messages,
      tools,
      context,
      params: this.params('act', settings),
      ...(request.checkpoint ? { checkpoint: request.checkpoint } : {}),
      ...(this.options.tracing ? { tracing: this.options.tracing } : {}),
      stopWhen: [
        whenAsked,
        afterFailures(this.options.maxRepairs ?? 3),
        afterSteps(this.options.maxSteps ?? 30),
        afterTokens(this.options.maxTokens ?? 400_000),
        afterMs(this.options.maxTurnMs ?? 20 * 60_000),
      ],
      reviewAnswer: async (text) => {
        const verdict = await reviewFigures(text, 'answer');
        return verdict.kind === 'redo' ? { redo: verdict.note } : { text: verdict.markdown };
      },
      onToolCalls: (calls) => progress.requested(calls),
      beforeToolCall: async (call) => {
        if (call.name !== triageTool.name) await announce();
        context.onRows = (rows) => void progress.rows(call, rows).catch(() => {});
        context.callId = call.id;
        await progress.started(call);
      },
      onToolCall: async (call, outcome) => {
        delete context.onRows;
        delete context.callId;
        if (!outcome.failed) keepToolResult(conversation, call, outcome.content);
        await progress.finished(call, outcome);
        this.options.logger.debug({ tool: call.name, failed: outcome.failed ?? false }, 'tool call');
        await request.log({
          kind: 'tool_call',
          callId: call.id,
          tool: call.name,
          arguments: call.arguments,
          result: outcome.content.slice(0, 4000),
          failed: outcome.failed ?? false,
        });
      },
    });
    delete conversation.inTurn;
    if (result.reason !== 'asked' && result.reason !== 'ended') await announce();
    const tables = databases.map((database) => database.name).join(', ');
    return finishTurn(
      result,
      conversation,
      emit,
      (reason) => `${OUT_OF_SCOPE_TEXT}: ${reason}.\n\nWhat I can see (${tables}):\n${schema}`,
    );
  }

  /** Summarises older turns when the history outgrows the budget, before any request of the turn is sent. */
  private async fitHistory(
    messages: ChatMessage[],
    settings: AgentSettings,
    signal: AbortSignal,
    keepTurns: number,
  ): Promise<void> {
    const summarised = await fitToBudget({
      keepTurns,
      messages,
      budgetTokens: this.options.contextTokens ?? 48_000,
      llm: this.options.llm,
      params: this.params('plan', settings),
      signal,
    });
    if (summarised) this.options.logger.info({ messages: messages.length }, 'summarised older turns');
  }

  private tools(settings: AgentSettings, schema: string, queries = false, oneDatabase = false): AgentTool[] {
    const { llm, prompts } = this.options;
    const review = { llm, prompt: prompts.review, params: this.params('review', settings), schema };
    return turnTools({
      queries,
      oneDatabase,
      ...(settings.review === 'on' ? { review } : {}),
    });
  }

  private params(stage: Stage, settings: AgentSettings): CompletionParams {
    const prompt = this.options.prompts[stage];
    const model = settings.model ?? this.options.stageModels?.[stage] ?? prompt.model;
    return {
      temperature: settings.temperature ?? prompt.temperature,
      maxTokens: prompt.maxTokens,
      ...(model ? { model } : {}),
    };
  }
}
