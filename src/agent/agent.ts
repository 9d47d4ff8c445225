/**
 * One turn of the agent: triage (answerable? ambiguous? out of scope?), an optional plan, then the
 * tool loop that does the work, and what the thread is told at the end. Speaks only through posts.
 */
import type { Logger } from '../logger.js';
import type { Post } from '../ports/chat.js';
import type { Database } from '../ports/database.js';
import type { CompletionParams, LlmClient, ToolCall } from '../ports/llm.js';
import type { Kernel } from '../ports/sandbox.js';
import { reviewed } from './code-review.js';
import { fitToBudget } from './context-budget.js';
import { answerText, type Conversation } from './conversation.js';
import { formatPlaybookForPrompt, type Playbook, rankPlaybooks } from './playbooks.js';
import { runToolLoop, type ToolLoopResult } from './run-tool-loop.js';
import { summariseSchema } from './schema-summary.js';
import type { AgentSettings } from './settings.js';
import { renderPrompt, type Stage, type StagePrompts } from './stage-prompts.js';
import { afterFailures, afterMs, afterSteps, afterTokens, whenAsked } from './stop-conditions.js';
import type { AgentTool, ToolContext } from './tool.js';
import { describeTable, listTables, loadDataframe, runSql } from './tools/database-tools.js';
import { askUser, draftSection, runPython } from './tools/kernel-tools.js';
import { triage } from './triage.js';

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
}

export interface TurnRequest {
  text: string;
  conversation: Conversation;
  settings: AgentSettings;
  kernel: () => Promise<Kernel>;
  emit: (post: Post) => Promise<void>;
  record: ToolContext['record'];
  signal: AbortSignal;
}

export type TurnOutcome = 'answered' | 'asked' | 'out_of_scope' | 'gave_up' | 'stopped';

export class Agent {
  constructor(private readonly options: AgentOptions) {}

  async runTurn(request: TurnRequest): Promise<TurnOutcome> {
    const { conversation, settings, emit } = request;
    const schema = await summariseSchema(this.options.databases);
    const pending = conversation.pending;
    delete conversation.pending;
    let plan = '';
    let playbook = this.playbook(conversation.playbook);
    if (pending?.kind === 'tool') {
      const answer = answerText(pending, request.text);
      conversation.messages.push({ role: 'tool', toolCallId: pending.callId, content: `The user answered: ${answer}` });
    } else {
      const text = pending
        ? `${pending.request}\n\n(Asked "${pending.text}", the user answered: ${answerText(pending, request.text)})`
        : request.text;
      if (!pending) {
        const decision = await triage({
          llm: this.options.llm,
          prompt: this.options.prompts.triage,
          params: this.params('triage', settings),
          schema,
          request: text,
          signal: request.signal,
          logger: this.options.logger,
        });
        if (decision.verdict === 'ambiguous' && decision.question) {
          conversation.pending = {
            kind: 'triage',
            request: text,
            text: decision.question,
            ...(decision.choices ? { choices: decision.choices } : {}),
          };
          await emit({
            kind: 'question',
            text: decision.question,
            ...(decision.choices ? { choices: decision.choices } : {}),
          });
          return 'asked';
        }
        if (decision.verdict === 'out_of_scope') {
          const tables = this.options.databases.map((database) => database.name).join(', ');
          await emit({
            kind: 'text',
            markdown: `I can't answer that from the data I have: ${decision.reason ?? 'it is not in these databases'}.\n\nWhat I can see (${tables}):\n${schema}`,
          });
          return 'out_of_scope';
        }
        const [followed] = rankPlaybooks(this.options.playbooks ?? [], text);
        if (followed) {
          conversation.playbook = followed.playbook.file;
          playbook = this.playbook(followed.playbook.file);
          await emit({
            kind: 'text',
            markdown: `Following playbook: ${followed.playbook.title} (prompts/playbooks/${followed.playbook.file})`,
          });
        } else {
          delete conversation.playbook;
          playbook = '';
        }
        if (settings.decompose === 'on' || (settings.decompose === 'auto' && decision.multi_step)) {
          plan = await this.plan(text, schema, playbook, settings, request.signal);
          await emit({ kind: 'text', markdown: `Plan:\n${plan}` });
        }
      }
      conversation.messages.push({ role: 'user', content: text });
    }
    const summarised = await fitToBudget({
      messages: conversation.messages,
      budgetTokens: this.options.contextTokens ?? 48_000,
      llm: this.options.llm,
      params: this.params('plan', settings),
      signal: request.signal,
    });
    if (summarised) this.options.logger.info({ messages: conversation.messages.length }, 'summarised older turns');
    const context: ToolContext = {
      kernel: request.kernel,
      databases: this.options.databases,
      emit,
      signal: request.signal,
      drafts: conversation.drafts,
      record: request.record,
    };
    const result = await runToolLoop({
      llm: this.options.llm,
      system: renderPrompt(this.options.prompts.act.template, {
        schema,
        plan: plan ? `Plan to follow:\n${plan}` : '',
        playbook,
        answer: this.options.prompts.answer.template,
        reasoning:
          settings.cot === 'on' ? 'Before each tool call, say in one or two sentences what you check and why.\n' : '',
      }),
      messages: conversation.messages,
      tools: this.tools(settings, schema),
      context,
      params: this.params('act', settings),
      stopWhen: [
        whenAsked,
        afterFailures(this.options.maxRepairs ?? 3),
        afterSteps(this.options.maxSteps ?? 30),
        afterTokens(this.options.maxTokens ?? 400_000),
        afterMs(this.options.maxTurnMs ?? 20 * 60_000),
      ],
      beforeToolCall: (call) => emit({ kind: 'status', text: describeCall(call) }),
      onToolCall: (call, outcome) => {
        this.options.logger.debug({ tool: call.name, failed: outcome.failed ?? false }, 'tool call');
      },
    });
    return this.finish(result, conversation, emit);
  }

  private async finish(
    result: ToolLoopResult,
    conversation: Conversation,
    emit: TurnRequest['emit'],
  ): Promise<TurnOutcome> {
    if (result.reason === 'answered') {
      await emit({ kind: 'text', markdown: result.text || '(no answer)' });
      return 'answered';
    }
    if (result.reason === 'asked') {
      conversation.pending = { kind: 'tool', callId: result.callId, ...result.question };
      await emit({ kind: 'question', ...result.question });
      return 'asked';
    }
    if (result.reason === 'repair_limit') {
      const tried = result.failures.map((failure, index) => `${index + 1}. ${firstLine(failure)}`).join('\n');
      await emit({
        kind: 'error',
        text: `I gave up on this step after ${result.failures.length} failed attempts. What I tried and how it failed:\n${tried}\n\nThe variables from earlier steps are still there; tell me how to proceed or rephrase the request.`,
      });
      return 'gave_up';
    }
    if (result.reason === 'finished') return 'answered'; // a finishing tool handed in the result
    const why = {
      step_limit: 'it took too many steps',
      token_limit: 'it used its token budget',
      time_limit: 'it ran out of time',
    }[result.reason];
    await emit({
      kind: 'error',
      text: `I stopped this turn because ${why}. Ask me to continue, or narrow the request.`,
    });
    return 'stopped';
  }

  /** The playbook a turn follows, as prompt text ('' for none). */
  private playbook(file: string | undefined): string {
    const found = file === undefined ? undefined : this.options.playbooks?.find((candidate) => candidate.file === file);
    return found ? formatPlaybookForPrompt(found) : '';
  }

  private async plan(
    request: string,
    schema: string,
    playbook: string,
    settings: AgentSettings,
    signal: AbortSignal,
  ): Promise<string> {
    const prompt = this.options.prompts.plan;
    const completion = await this.options.llm.complete({
      messages: [
        { role: 'system', content: renderPrompt(prompt.template, { schema, playbook }) },
        { role: 'user', content: request },
      ],
      params: this.params('plan', settings),
      signal,
    });
    return completion.message.content?.trim() ?? '';
  }

  private tools(settings: AgentSettings, schema: string): AgentTool[] {
    const python =
      settings.review === 'on'
        ? reviewed(runPython, {
            llm: this.options.llm,
            prompt: this.options.prompts.review,
            params: this.params('review', settings),
            schema,
          })
        : runPython;
    return [listTables, describeTable, runSql, loadDataframe, python, askUser, draftSection] as AgentTool[];
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

/** A status line for a tool call: the tool and the gist of its arguments. */
function describeCall(call: ToolCall): string {
  let args: Record<string, unknown> = {};
  try {
    args = JSON.parse(call.arguments) as Record<string, unknown>;
  } catch {
    // malformed arguments: the tool result will say so
  }
  const gist = [args.name, args.table, args.sql, args.code, args.question].find((value) => typeof value === 'string');
  const line = typeof gist === 'string' ? gist.replace(/\s+/g, ' ').trim() : '';
  return line ? `${call.name}: ${line.length > 80 ? `${line.slice(0, 79)}…` : line}` : call.name;
}

function firstLine(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const error = lines.find((line) => /^error:/.test(line)) ?? lines[0] ?? '';
  return error.slice(0, 300);
}
