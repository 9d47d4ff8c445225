/**
 * DABench scored exactly as its authors score it, beside tally's own scorer (dabench-score.ts), so a
 * run's figures compare with published ones. The published logic is InfiAgent/InfiAgent,
 * examples/DA-Agent/eval_closed_form.py (extract_format, is_equal, evaluate_responses,
 * evaluate_accuracy_by_question, evaluate_accuracy_by_sub_question,
 * evaluate_accuracy_proportional_by_sub_question_adjusted):
 *
 * - answers are read with `re.findall(r"@(\w+)\[(.*?)\]", response)` into a dict: a name given twice
 *   counts once, with its last value; nothing is stripped, so `@is_normal[ no]` reads ' no', which is not
 *   the label 'no' (float() strips spaces itself, so `@mean[ 3.5 ]` still equals 3.5);
 * - labels are a dict too (`{name: value}`): a name labelled twice is one sub-question, its last value
 *   (question 734 labels seven values under two names, so it has two sub-questions);
 * - a labelled name is correct when `response == label` or `abs(float(response) - float(label)) < 1e-6`,
 *   with Python's float() (python-float.ts); a missing name is None, which is never equal;
 * - a question with no response, or an empty one, is left out of every accuracy (not counted wrong);
 * - by question: questions with every sub-question correct / questions scored (a label with no names is
 *   correct, as Python's all([]) is); by sub-question: correct sub-questions / sub-questions; proportional:
 *   the mean over questions scored of correct × (1 / sub-questions); each rounded to 4 places as Python's
 *   round() does, and printed as `{:.2%}`.
 *
 * The response, for us: what the thread showed its user, the agent's text posts joined by blank lines
 * (CaseOutcome.answer), whatever status the case ended with. It is the text a reader gets, and the one a
 * responses file for eval_closed_form.py would hold, so tally's grounding marks stay in: a figure found in
 * no tool result is posted `@mean[3.14⚠]`, read as '3.14⚠', which float() refuses, so it counts wrong as
 * published where tally's own scorer drops the mark. An answer given twice across posts keeps its last value.
 */
import type { PartScore, PublishedAccuracy, PublishedScore } from './eval-case.js';
import { pythonFloat } from './python-float.js';

/** Where the published logic lives. */
export const PUBLISHED_SOURCE = 'InfiAgent/InfiAgent, examples/DA-Agent/eval_closed_form.py';
/** How every page and line that shows it names the published score. */
export const PUBLISHED_LABEL = 'as published (eval_closed_form.py)';

/** `@(\w+)\[(.*?)\]` as Python reads it: `\w` is Unicode letters, digits and `_`; `.` is all but a newline. */
const ANSWER = /@([\p{L}\p{N}_]+)\[([^\n]*?)\]/gu;

/** extract_format, then `dict(zip(names, answers))`: every `@name[value]`, a repeated name with its last value. */
export function extractFormat(response: string): Map<string, string> {
  const answers = new Map<string, string>();
  for (const match of response.matchAll(ANSWER)) answers.set(match[1] ?? '', match[2] ?? '');
  return answers;
}

/** is_equal: the same string, or both read by float() and within 1e-6 (a NaN or two infinities never are). */
export function isEqualAsPublished(response: string | undefined, label: string): boolean {
  if (response === label) return true;
  if (response === undefined) return false; // float(None) raises TypeError
  const [left, right] = [pythonFloat(response), pythonFloat(label)];
  return left !== undefined && right !== undefined && Math.abs(left - right) < 1e-6;
}

/** evaluate_responses for one question: one part per labelled name, or not answered for an empty response. */
export function scoreAsPublished(response: string, labels: ReadonlyArray<readonly [string, string]>): PublishedScore {
  if (response === '') return { answered: false, correct: false, parts: [] };
  const expected = new Map(labels.map(([name, value]) => [name, value]));
  const answers = extractFormat(response);
  const parts: PartScore[] = [...expected].map(([name, value]) => {
    const got = answers.get(name);
    return { name, correct: isEqualAsPublished(got, value), expected: value, ...(got === undefined ? {} : { got }) };
  });
  return { answered: true, correct: parts.every((part) => part.correct), parts };
}

/**
 * Python's round(x, 4): correctly rounded, an exact tie to the even digit (round(0.03125, 4) is 0.0312),
 * where toFixed rounds a tie up. toFixed(100) spells a fraction's double out exactly.
 */
export function pythonRound4(x: number): number {
  const [whole = '', fraction = ''] = Math.abs(x).toFixed(100).split('.');
  const tie = /^50*$/.test(fraction.slice(4));
  if (!tie || Number(fraction[3]) % 2 === 1) return Number(x.toFixed(4));
  return Math.sign(x) * Number(`${whole}.${fraction.slice(0, 4)}`);
}

/** The three accuracies of eval_closed_form.py over the cases' published scores. */
export function publishedAccuracy(scores: PublishedScore[]): PublishedAccuracy {
  const scored = scores.filter((score) => score.answered);
  const correctParts = (score: PublishedScore) => score.parts.filter((part) => part.correct).length;
  const subQuestions = scored.reduce((total, score) => total + score.parts.length, 0);
  const proportional = scored.reduce(
    (total, score) => total + (score.parts.length > 0 ? correctParts(score) * (1 / score.parts.length) : 0),
    0,
  );
  const rounded = (value: number, over: number) => (over > 0 ? pythonRound4(value / over) : 0);
  return {
    cases: scores.length,
    scored: scored.length,
    byQuestion: rounded(scored.filter((score) => score.correct).length, scored.length),
    bySubQuestion: rounded(
      scored.reduce((total, score) => total + correctParts(score), 0),
      subQuestions,
    ),
    proportional: rounded(proportional, scored.length),
  };
}

/** `{:.2%}`, as the published script prints its accuracies: `78.72%`. */
export function formatAsPublished(fraction: number): string {
  return `${(fraction * 100).toFixed(2)}%`;
}

/** `by question 78.72%, proportional 80.10%, by sub-question 81.00% over 250 of 257 cases (7 with no response, left out)`. */
export function describeAsPublished(accuracy: PublishedAccuracy): string {
  const unanswered = accuracy.cases - accuracy.scored;
  return `by question ${formatAsPublished(accuracy.byQuestion)}, proportional ${formatAsPublished(
    accuracy.proportional,
  )}, by sub-question ${formatAsPublished(accuracy.bySubQuestion)} over ${accuracy.scored} of ${accuracy.cases} cases${
    unanswered > 0 ? ` (${unanswered} with no response, left out)` : ''
  }`;
}
