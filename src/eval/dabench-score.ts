/**
 * tally's scoring of DABench, after the benchmark's own: the response's `@name[value]` answers are
 * found with one regular expression, and each labelled answer counts as correct when its name is
 * there with an equal value, equal as strings or as numbers within 1e-6. The marks tally puts after
 * figures it found in no tool result (`@mean[3.14⚠]`) are dropped first: they are tally's note to the
 * reader, not part of the value; values are trimmed, and every labelled pair is a part. The benchmark's
 * scoring exactly, for figures that compare with published ones, is dabench-published-score.ts.
 */
import { MARK } from '../report/annotate-figures.js';
import type { PartScore } from './eval-case.js';

const ANSWER = /@(\w+)\[(.*?)\]/g;

/** The `@name[value]` answers in a text, grounding marks dropped; a name given twice keeps its last value. */
export function parseAnswers(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of text.replaceAll(MARK, '').matchAll(ANSWER)) found.set(match[1] ?? '', (match[2] ?? '').trim());
  return found;
}

export function sameAnswer(got: string, expected: string): boolean {
  if (got.trim() === expected.trim()) return true;
  const [left, right] = [Number(got), Number(expected)];
  return got.trim() !== '' && expected.trim() !== '' && Number.isFinite(left) && Number.isFinite(right)
    ? Math.abs(left - right) < 1e-6
    : false;
}

/** One part per labelled answer. */
export function scoreDabench(text: string, labels: ReadonlyArray<readonly [string, string]>): PartScore[] {
  const answers = parseAnswers(text);
  return labels.map(([name, expected]) => {
    const got = answers.get(name);
    if (got === undefined) return { name, correct: false, expected, why: `no @${name}[…] in the answer` };
    const correct = sameAnswer(got, expected);
    return { name, correct, expected, got, ...(correct ? {} : { why: `@${name}[${got}] is not ${expected}` }) };
  });
}
