/**
 * How a turn starts work on a new request (or on one whose triage question was just answered): triage (an
 * ambiguous request gets a question back, one the data cannot answer is told so), the playbook to follow, and the
 * plan when the request takes several steps. Triage and plan send what the act requests send (system prompt,
 * tools, history, the turn's message) with their instruction last, so the provider's prompt cache serves them.
 */
import type { Logger } from '../base/logger.js';
import type { Database } from '../ports/database.js';
import type { ChatMessage, CompletionParams, LlmClient, ToolSpec } from '../ports/llm.js';
import { answerText, type PendingQuestion } from './conversation.js';
import type { TurnOutcome } from './finish-turn.js';
import { followPlaybook } from './follow-playbook.js';
import type { Playbook } from './playbooks.js';
import { renderPrompt, type Stage, type StagePrompts } from './stage-prompts.js';
import { triage } from './triage.js';
import { guidanceMessage, turnMessage } from './turn-message.js';
import type { TurnRequest } from './turn-request.js';

/** How the thread is told a request is out of scope (triage found the data cannot answer it). */
export const OUT_OF_SCOPE_TEXT = "I can't answer that from the data I have";

/** What opening a request takes from the agent. */
export interface OpenRequestOptions {
  llm: LlmClient;
  prompts: StagePrompts;
  logger: Logger;
  /** The playbooks the agent follows. */
  playbooks: Playbook[];
  /** The agent's databases: what playbooks are ranked against, and what a request that names none may read. */
  databases: Database[];
  /** The model parameters of a stage under the thread's settings. */
  params: (stage: Stage) => CompletionParams;
}

/** What every request of the turn starts with, and what was found for this request. */
export interface RequestPrefix {
  /** The act stage's system prompt: the same for the whole thread. */
  system: string;
  /** The act stage's tools, as sent. */
  tools: ToolSpec[];
  /** The tables, shared files and knowledge found for this request: they go into the turn's message. */
  found: string;
  /** Everything the request may use, as text: what the thread is shown when the data cannot answer it. */
  schema: string;
}

/** A request the turn goes on to work on: the plan (empty when there is none), the playbook, and its notice. */
export interface OpenedRequest {
  plan: string;
  playbook: string;
  notice?: string;
}

/**
 * Starts work on a request (or on a request whose triage question was just answered): triage,
 * the playbook to follow, the plan. Returns the outcome when the turn ends here.
 */
export async function openRequest(
  request: TurnRequest,
  pending: Extract<PendingQuestion, { kind: 'triage' }> | undefined,
  prefix: RequestPrefix,
  options: OpenRequestOptions,
): Promise<TurnOutcome | OpenedRequest> {
  const { conversation, settings, emit } = request;
  let plan = '';
  const text = pending
    ? `${pending.request}\n\n(Asked "${pending.text}", the user answered: ${answerText(pending, request.text)})`
    : request.text;
  const message: ChatMessage = { role: 'user', content: turnMessage(text, prefix.found) };
  const sent = (): ChatMessage[] => [{ role: 'system', content: prefix.system }, ...conversation.messages];
  // A clarified request was triaged before its question; it is ranked and planned like any other.
  let multiStep = pending?.multiStep ?? false;
  if (!pending) {
    const decision = await triage({
      llm: options.llm,
      prompt: options.prompts.triage,
      params: options.params('triage'),
      messages: [...sent(), message],
      tools: prefix.tools,
      signal: request.signal,
      logger: options.logger,
    });
    if (decision.verdict === 'ambiguous' && decision.question) {
      const choices = decision.choices ? { choices: decision.choices } : {};
      conversation.pending = {
        kind: 'triage',
        request: text,
        text: decision.question,
        ...choices,
        ...(decision.multi_step ? { multiStep: true } : {}),
      };
      await emit({ kind: 'question', text: decision.question, ...choices });
      return 'asked';
    }
    if (decision.verdict === 'out_of_scope') {
      const tables = (request.databases ?? options.databases).map((database) => database.name).join(', ');
      await emit({
        kind: 'text',
        markdown: `${OUT_OF_SCOPE_TEXT}: ${decision.reason ?? 'it is not in these databases'}.\n\nWhat I can see (${tables}):\n${prefix.schema}`,
      });
      return 'out_of_scope';
    }
    multiStep = decision.multi_step ?? false;
  }
  const { playbook, notice } = await followPlaybook(text, conversation, request, {
    playbooks: options.playbooks,
    databases: options.databases,
    ...(options.llm.embed ? { embed: options.llm.embed } : {}),
    logger: options.logger,
  });
  if (settings.decompose === 'on' || (settings.decompose === 'auto' && multiStep)) {
    plan = await planRequest([...sent(), message], prefix.tools, playbook, request.signal, options);
    await request.log({ kind: 'post', post: 'text', text: `Plan:\n${plan}` });
  }
  conversation.request = text;
  await request.log({ kind: 'request', text });
  conversation.messages.push(message);
  const guidance = guidanceMessage(playbook, plan);
  if (guidance) conversation.messages.push({ role: 'user', content: guidance });
  return { plan, playbook, ...(notice ? { notice } : {}) };
}

/** The plan stage: the steps the model means to take to answer the request (the last message of `sent`). */
async function planRequest(
  sent: ChatMessage[],
  tools: ToolSpec[],
  playbook: string,
  signal: AbortSignal,
  options: OpenRequestOptions,
): Promise<string> {
  const prompt = options.prompts.plan;
  const completion = await options.llm.complete({
    messages: [...sent, { role: 'user', content: renderPrompt(prompt.template, { playbook }) }],
    tools,
    toolChoice: 'none',
    params: options.params('plan'),
    signal,
  });
  return completion.message.content?.trim() ?? '';
}
