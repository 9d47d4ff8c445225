/**
 * The scripted oracle for DABench: a stand-in for a model that knows the labels. Every question is a clear one-step
 * request (no triage), answered as a careful model would: first a cell that
 * prints the values it will state, then the answer in the benchmark's `@name[value]` format, so the
 * answer's figures are grounded in a tool result as tally checks them. The cell reads the labels,
 * it does not compute them (see {@link labelCell}): the oracle proves the harness (sharing, the
 * thread, the tools, number grounding, scoring, the summary) end to end without a model; its
 * accuracy says nothing about any model. `tally eval` uses it when no LLM_BASE_URL is set.
 */
import { callTool, type ScriptContext, type ScriptStep, say } from '../demo/scripted-model-server.js';
import type { DabenchItem } from './dabench-suite.js';

/** How the oracle answers one question, given the conversation so far. */
export type OracleAnswer = (item: DabenchItem, context: ScriptContext) => ScriptStep;

/** The labels as `@name[value]`, one after another: the benchmark's answer format. */
export function labelledAnswer(item: DabenchItem): string {
  return item.labels.map(([name, value]) => `@${name}[${value}]`).join(' ');
}

/**
 * The cell that prints each labelled value (`mean_fare = 34.65`): the oracle reads its labels, it
 * does not compute them. A JSON string is a valid Python string literal, so any label prints as written.
 */
export function labelCell(item: DabenchItem): string {
  return item.labels.map(([name, value]) => `print(${JSON.stringify(`${name} = ${value}`)})`).join('\n');
}

/** Whether the conversation holds the result of a run_python call with exactly this code. */
export function cellRan(context: ScriptContext, code: string): boolean {
  const calls = context.messages.flatMap((message) =>
    (message.tool_calls ?? []).filter((call) => call.function.name === 'run_python' && codeOf(call) === code),
  );
  const answered = new Set(
    context.messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id),
  );
  return calls.some((call) => answered.has(call.id));
}

function codeOf(call: { function: { arguments: string } }): string | undefined {
  try {
    const parsed = JSON.parse(call.function.arguments) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

/** The default answer: the cell that prints the labels, then, once it ran, the labels as the answer. */
export const answerFromLabels: OracleAnswer = (item, context) => {
  const code = labelCell(item);
  return cellRan(context, code) ? say(labelledAnswer(item)) : callTool('run_python', { code });
};

/**
 * A script for `items`: one context-driven step per model request (cases run in parallel, so each
 * step finds its question in the conversation), enough for `requestsPerCase` requests each. A case
 * answered by {@link answerFromLabels} takes two (the cell, the answer); two more are left for an
 * answer that gets a review note on its figures and is given again.
 */
export function dabenchOracle(
  items: DabenchItem[],
  answer: OracleAnswer = answerFromLabels,
  requestsPerCase = 4,
): ScriptStep[] {
  // Longest first: a question that is a prefix of another must not take its place.
  const byLength = [...items].sort((left, right) => right.question.length - left.question.length);
  const step = (context: ScriptContext): ScriptStep => {
    const asked = context.messages.find((message) => message.role === 'user')?.content;
    const item = byLength.find((candidate) => String(asked ?? '').includes(candidate.question));
    return item ? answer(item, context) : say('I do not know this question.');
  };
  return Array.from({ length: items.length * requestsPerCase }, () => step);
}
