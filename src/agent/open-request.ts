/**
 * How a turn starts work on a request, and what a multi-step request follows. The request's own message (what was
 * found for it, then the request) goes after the history. Triage is the model's first call in the act loop
 * (triage.ts): a clear one-step request costs no request of its own and is given no method to follow; one triage
 * finds multi-step gets the playbook that fits it and its plan as messages after that call. A thread that always
 * plans (`decompose=on`) gets them before the work.
 */
import type { Logger } from '../base/logger.js';
import type { Database } from '../ports/database.js';
import type { ChatMessage, CompletionParams, LlmClient, ToolSpec } from '../ports/llm.js';
import { answerText, type PendingQuestion } from './conversation.js';
import { followPlaybook } from './follow-playbook.js';
import { planRequest } from './plan-request.js';
import { type Playbook, playbookWithoutCode } from './playbooks.js';
import type { Stage, StagePrompts } from './stage-prompts.js';
import { planMessage, turnMessage } from './turn-message.js';
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

/** What every request of the turn starts with. */
export interface RequestPrefix {
  /** The act stage's system prompt: the same for the whole thread. */
  system: string;
  /** The act stage's tools, as sent. */
  tools: ToolSpec[];
}

/** What a multi-step request follows: the messages that say it (playbook, plan), the plan, the playbook notice. */
export interface Guidance {
  messages: string[];
  plan: string;
  notice?: string;
}

/**
 * Starts work on a request: its message goes into the history, and in a thread that always plans, what it follows.
 * `pending` is a triage question asked before triage moved into the act loop (a thread saved by an earlier
 * version): its answer is added to the request it asked about.
 */
export async function openRequest(
  request: TurnRequest,
  pending: Extract<PendingQuestion, { kind: 'triage' }> | undefined,
  prefix: RequestPrefix & { found: string },
  options: OpenRequestOptions,
): Promise<Guidance> {
  const { conversation, settings } = request;
  const text = pending
    ? `${pending.request}\n\n(Asked "${pending.text}", the user answered: ${answerText(pending, request.text)})`
    : request.text;
  conversation.request = text;
  await request.log({ kind: 'request', text });
  conversation.messages.push({ role: 'user', content: turnMessage(text, prefix.found) });
  delete conversation.playbook;
  if (settings.decompose !== 'on' && !(settings.decompose === 'auto' && pending?.multiStep)) {
    return { messages: [], plan: '' };
  }
  const guidance = await guidanceFor(request, prefix, options, conversation.messages);
  for (const content of guidance.messages) conversation.messages.push({ role: 'user', content });
  return guidance;
}

/**
 * What the request being worked on follows, found multi-step: the playbook that fits it and, unless the thread
 * never plans, the plan the plan stage writes after `messages` (the history the request ends).
 */
export async function guidanceFor(
  request: TurnRequest,
  prefix: RequestPrefix,
  options: OpenRequestOptions,
  messages: ChatMessage[],
): Promise<Guidance> {
  const { conversation } = request;
  const { playbook, notice } = await followPlaybook(conversation.request ?? request.text, conversation, request, {
    playbooks: options.playbooks,
    databases: options.databases,
    ...(options.llm.embed ? { embed: options.llm.embed } : {}),
    logger: options.logger,
  });
  const plan =
    request.settings.decompose === 'off' ? '' : await writePlan(request, prefix, options, messages, playbook);
  return {
    messages: [playbook, plan ? planMessage(plan) : ''].filter(Boolean),
    plan,
    ...(notice ? { notice } : {}),
  };
}

/** A question triage asked was answered: the request as clarified, so what follows is chosen for it. */
export async function clarifyRequest(
  request: TurnRequest,
  pending: Extract<PendingQuestion, { kind: 'tool' }>,
): Promise<void> {
  const { conversation } = request;
  const text = `${conversation.request ?? ''}\n\n(Asked "${pending.text}", the user answered: ${answerText(pending, request.text)})`;
  conversation.request = text;
  await request.log({ kind: 'request', text });
}

/** Whether the call `callId` of the history is a triage call. */
export function isTriageCall(messages: readonly ChatMessage[], callId: string): boolean {
  return messages.some(
    (message) =>
      message.role === 'assistant' &&
      (message.toolCalls ?? []).some((call) => call.id === callId && call.name === 'triage'),
  );
}

/** The plan of the request `messages` end with (the plan stage), logged as the thread sees it. */
async function writePlan(
  request: TurnRequest,
  prefix: RequestPrefix,
  options: OpenRequestOptions,
  messages: ChatMessage[],
  playbook: string,
): Promise<string> {
  const plan = await planRequest({
    llm: options.llm,
    prompt: options.prompts.plan,
    params: options.params('plan'),
    messages: [{ role: 'system', content: prefix.system }, ...messages],
    tools: prefix.tools,
    // The steps need the method, not its code: the act requests that follow get the whole playbook.
    playbook: playbookWithoutCode(playbook),
    signal: request.signal,
  });
  await request.log({ kind: 'post', post: 'text', text: `Plan:\n${plan}` });
  return plan;
}
