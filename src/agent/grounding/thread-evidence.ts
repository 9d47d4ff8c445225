/**
 * What a thread's figures are checked against, kept with its conversation: the numbers of every tool result (and of
 * cells people ran themselves); and the numbers the agent may state back without a result behind them: what people
 * wrote (the request, answers, feedback), but not what they claimed as facts, and the parameters of the code and SQL
 * that ran (`bins=12`, `LIMIT 20`) when no result holds them.
 */
import type { ToolCall } from '../../ports/llm.js';
import type { Conversation } from '../conversation.js';
import type { EvidenceSource } from './ground-figures.js';
import { numbersIn } from './result-numbers.js';
import { claimedFigures, isAmong } from './stated-figures.js';

/** Numbers kept per thread at most; the oldest results go first beyond it. */
export const MAX_THREAD_NUMBERS = 40_000;
const MAX_KEPT = 2000;

/** Keeps the numbers of a tool result (or a person's cell) that the thread has seen. */
export function keepEvidence(conversation: Conversation, source: { id: string; tool: string; text: string }): void {
  const numbers = numbersIn(source.text);
  if (numbers.length === 0) return;
  const evidence = [...(conversation.evidence ?? []), { id: source.id, tool: source.tool, numbers }];
  let total = evidence.reduce((sum, kept) => sum + kept.numbers.length, 0);
  while (total > MAX_THREAD_NUMBERS && evidence.length > 1) total -= evidence.shift()?.numbers.length ?? 0;
  conversation.evidence = evidence;
}

/**
 * The numbers a person wrote that the agent may state back without a result: all of them but those they claimed as
 * facts (`the churn rate is 31.4%`), which an answer affirming them must find in a result like any other figure.
 */
export function givenNumbers(text: string): number[] {
  const claimed = claimedFigures(text);
  return numbersIn(text).filter(
    (number) => !claimed.some((figure) => isAmong(figure, [number, figure.percent ? number * 100 : number])),
  );
}

/** Keeps the numbers a person wrote in the thread (`givenNumbers`): stating them back is not a result. */
export function keepGiven(conversation: Conversation, text: string): void {
  const numbers = givenNumbers(text);
  if (numbers.length > 0)
    conversation.given = [...new Set([...(conversation.given ?? []), ...numbers])].slice(-MAX_KEPT);
}

/** Keeps the numbers of code and SQL that ran: a figure stating one (and no result) is a parameter. */
export function keepParameters(conversation: Conversation, code: string): void {
  const numbers = numbersIn(code);
  if (numbers.length > 0) {
    conversation.parameters = [...new Set([...(conversation.parameters ?? []), ...numbers])].slice(-MAX_KEPT);
  }
}

export function evidenceOf(conversation: Conversation): EvidenceSource[] {
  return conversation.evidence ?? [];
}

/** The tools whose results hold data; a draft's or a question's result (a review note, an answer) does not. */
const DATA_TOOLS = new Set([
  'list_tables',
  'describe_table',
  'run_sql',
  'load_dataframe',
  'run_verified_query',
  'run_python',
]);

/** Keeps a data tool's result as what figures are checked against, and its code's numbers as parameters. */
export function keepToolResult(
  conversation: Conversation,
  call: Pick<ToolCall, 'id' | 'name' | 'arguments'>,
  content: string,
): void {
  if (!DATA_TOOLS.has(call.name)) return;
  keepEvidence(conversation, { id: call.id, tool: call.name, text: content });
  keepParameters(conversation, call.arguments);
}
