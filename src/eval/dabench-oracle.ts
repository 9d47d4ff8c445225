/**
 * The scripted oracle for DABench: a stand-in for a model that knows the labels. It triages every
 * request as answerable and answers each question with its labelled values in the benchmark's
 * format. It proves the harness (sharing, the thread, scoring, the summary) end to end without a
 * model; its accuracy says nothing about any model. `tally eval` uses it when no LLM_BASE_URL is set.
 */
import { callTool, type ScriptContext, type ScriptStep, say } from '../demo/scripted-model-server.js';
import type { DabenchItem } from './dabench-suite.js';

/** How the oracle answers one question; by default, every label as `@name[value]`. */
export type OracleAnswer = (item: DabenchItem, context: ScriptContext) => ScriptStep;

export const answerFromLabels: OracleAnswer = (item) =>
  say(item.labels.map(([name, value]) => `@${name}[${value}]`).join(' '));

/**
 * A script for `items`: one context-driven step per model request (cases run in parallel, so each
 * step finds its question in the conversation), enough for `requestsPerCase` requests each.
 */
export function dabenchOracle(
  items: DabenchItem[],
  answer: OracleAnswer = answerFromLabels,
  requestsPerCase = 4,
): ScriptStep[] {
  // Longest first: a question that is a prefix of another must not take its place.
  const byLength = [...items].sort((left, right) => right.question.length - left.question.length);
  const step = (context: ScriptContext): ScriptStep => {
    if (context.tools.length === 1 && context.tools[0]?.function.name === 'triage') {
      return callTool('triage', { verdict: 'answerable', multi_step: false });
    }
    const asked = context.messages.find((message) => message.role === 'user')?.content;
    const item = byLength.find((candidate) => String(asked ?? '').includes(candidate.question));
    return item ? answer(item, context) : say('I do not know this question.');
  };
  return Array.from({ length: items.length * requestsPerCase }, () => step);
}
