/**
 * Reading numbers and names out of an agent's answer, and scoring them as parts. The golden cases
 * ask for answers as labelled lines (`Month-to-month: 0.414`); these readers accept what a careful
 * analyst would write instead: Markdown bullets, bold, tables (`| Two year | 0.029 |`), thousands
 * separators (`5,634`), percentages (`41.4%`) for rates, and extra words (`user_churn (train): 5684
 * rows`). When a label appears on several lines, the line that labels it (`label:`, `label =`,
 * `| label |`) wins over a line starting with it, which wins over a mention mid-sentence; among
 * equals the last line wins, as the final answer comes last.
 */
import type { CaseOutcome, PartScore } from '../eval-case.js';

/** Text to read and where it came from, for the failure message ("in the answer"). */
export interface Source {
  text: string;
  where: string;
}

/** The agent's posts. */
export const inAnswer = (outcome: CaseOutcome): Source => ({ text: outcome.answer, where: 'in the answer' });

/** The narratives of the sections accepted into the report. */
export const inSections = (outcome: CaseOutcome): Source => ({
  text: outcome.sections.join('\n\n'),
  where: 'in the accepted report sections',
});

export interface FoundNumber {
  /** The value, a percentage already divided by 100. */
  value: number;
  /** As written, e.g. `41.4%` or `5,634`. */
  text: string;
  percent: boolean;
}

/** A count, a rate (fraction in 0..1 or a percentage), or any number. */
export type NumberKind = 'count' | 'rate' | 'any';

// Not inside a word or an id (`7590-VHVEG`, `s1`, `v2`), nor a fragment of a longer number.
const NUMBER = /(?<![\w.,])-?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?![\w-]|,\d)(?:\s?%)?/g;

/** Every number in `text`, in order: `5,634`, `0.427`, `.427`, `42.7%`, `-1.5`. */
export function numbersIn(text: string): FoundNumber[] {
  return [...text.matchAll(NUMBER)]
    .map((match) => match[0].trim())
    .filter((found) => /\d/.test(found))
    .map((found) => {
      const percent = found.endsWith('%');
      const digits = found.replace(/[,%\s]/g, '');
      // Scaled in the decimal text, so 42.7% is exactly the double nearest 0.427 (not 42.7 / 100).
      return { value: Number(percent ? `${digits}e-2` : digits), text: found, percent };
    });
}

function fits(found: FoundNumber, kind: NumberKind): boolean {
  if (kind === 'count') return !found.percent && Number.isInteger(found.value) && !found.text.includes('.');
  if (kind === 'rate') return found.percent || (found.value >= 0 && found.value <= 1);
  return true;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `label` as a whole word (`user_churn` does not match inside `user_churn_new`). */
const word = (label: string) => `(?<![\\w])${escapeRegExp(label)}(?![\\w])`;

/**
 * What follows `label` on the lines that mention it, best first: after `label:` / `label =` /
 * `| label |`, then after the label at the start of a line, then after it anywhere; within each,
 * the last line first.
 */
export function afterLabel(text: string, label: string): string[] {
  const lines = text.split('\n').reverse();
  const labelled = new RegExp(`${word(label)}[\\s*_\`'")\\]]*[:=|](.*)$`, 'i');
  const leading = new RegExp(`^[\\s>*_\`#|+-]*(?:\\d+[.)]\\s+)?[*_\`'"]*${word(label)}(.*)$`, 'i');
  const anywhere = new RegExp(`${word(label)}(.*)$`, 'i');
  return [labelled, leading, anywhere].flatMap((pattern) =>
    lines.flatMap((line) => {
      const tail = pattern.exec(line)?.[1];
      return tail === undefined ? [] : [tail];
    }),
  );
}

/** The first number of `kind` after `label` on the best line that has one. */
export function findLabelledNumber(text: string, label: string, kind: NumberKind): FoundNumber | undefined {
  for (const tail of afterLabel(text, label)) {
    const found = numbersIn(tail).find((candidate) => fits(candidate, kind));
    if (found) return found;
  }
  return undefined;
}

interface Expectation {
  /** The line label to look for, e.g. `Two year`. */
  label: string;
  /** The part's name; default the label. */
  name?: string;
  /** What the number is, for the failure message, e.g. `churn rate for 'Two year'`. */
  what: string;
}

const KIND_WORDS: Record<NumberKind, string> = {
  count: 'whole number',
  rate: 'rate (a fraction like 0.427 or a percentage like 42.7%)',
  any: 'number',
};

function missing(source: Source, expectation: Expectation, kind: NumberKind, expected: string): PartScore {
  return {
    name: expectation.name ?? expectation.label,
    correct: false,
    expected,
    why: `expected ${expectation.what} ${expected}, found no ${KIND_WORDS[kind]} after '${expectation.label}' ${source.where}`,
  };
}

/** An exact count, e.g. `user_churn: 5684`. */
export function checkCount(source: Source, expectation: Expectation & { expected: number }): PartScore {
  const expected = String(expectation.expected);
  const found = findLabelledNumber(source.text, expectation.label, 'count');
  if (!found) return missing(source, expectation, 'count', expected);
  const correct = found.value === expectation.expected;
  return {
    name: expectation.name ?? expectation.label,
    correct,
    expected,
    got: found.text,
    ...(correct ? {} : { why: `expected ${expectation.what} ${expected}, found ${found.text}` }),
  };
}

/**
 * A rate to 3 decimals: right when it is the expected rate rounded to 3 decimals (either way on a
 * tie) or a more precise value within half a thousandth, so `0.43` passes for 0.4302 (it is
 * 0.430) but `0.03` fails for 0.0291 (it is 0.029: rounded to 2 decimals).
 */
export function checkRate(source: Source, expectation: Expectation & { expected: number }): PartScore {
  const expected = expectation.expected.toFixed(3);
  const found = findLabelledNumber(source.text, expectation.label, 'rate');
  if (!found) return missing(source, expectation, 'rate', expected);
  const close = Math.abs(found.value - expectation.expected) <= 0.0005 + 1e-9;
  const thousandths = Math.abs(found.value * 1000 - Math.round(found.value * 1000)) < 1e-6;
  const precise = decimalsOf(found) >= 4;
  const correct = close && (thousandths || precise);
  return {
    name: expectation.name ?? expectation.label,
    correct,
    expected,
    got: found.text,
    ...(correct ? {} : { why: `expected ${expectation.what} ${expected} (3 decimals), found ${found.text}` }),
  };
}

/** Decimals of a number as a fraction: `41.4%` has 3, `0.03` has 2. */
function decimalsOf(found: FoundNumber): number {
  const decimals = found.text.replace(/[%\s]/g, '').split('.')[1]?.length ?? 0;
  return found.percent ? decimals + 2 : decimals;
}

/** A rate within `low..high` (both included), e.g. a model's ROC AUC. */
export function checkInBand(source: Source, expectation: Expectation & { low: number; high: number }): PartScore {
  const expected = `${expectation.low.toFixed(3)}..${expectation.high.toFixed(3)}`;
  const found = findLabelledNumber(source.text, expectation.label, 'rate');
  if (!found) return missing(source, expectation, 'rate', `within ${expected}`);
  const correct = found.value >= expectation.low && found.value <= expectation.high;
  return {
    name: expectation.name ?? expectation.label,
    correct,
    expected,
    got: found.text,
    ...(correct ? {} : { why: `expected ${expectation.what} within ${expected}, found ${found.text}` }),
  };
}

/**
 * The set of names after `label` (`Disagree: user_services, user_churn`), read as the words of
 * `vocabulary` found there; `none` for an empty set. Order and separators do not matter.
 */
export function checkNames(
  source: Source,
  expectation: Expectation & { expected: readonly string[]; vocabulary: readonly string[] },
): PartScore {
  const expected = expectation.expected.length === 0 ? 'none' : [...expectation.expected].sort().join(', ');
  const name = expectation.name ?? expectation.label;
  const named = (tail: string) => expectation.vocabulary.filter((entry) => new RegExp(word(entry), 'i').test(tail));
  const tail = afterLabel(source.text, expectation.label).find(
    (candidate) => named(candidate).length > 0 || /\bnone\b/i.test(candidate),
  );
  if (tail === undefined) {
    return {
      name,
      correct: false,
      expected,
      why: `expected ${expectation.what} ${expected}, found no names after '${expectation.label}' ${source.where}`,
    };
  }
  const found = named(tail).sort();
  const got = found.length === 0 ? 'none' : found.join(', ');
  const correct = got === expected;
  return {
    name,
    correct,
    expected,
    got,
    ...(correct ? {} : { why: `expected ${expectation.what} ${expected}, found ${got}` }),
  };
}

/** A word or id after `label` (`First: 0003-VUGQT`, `Top: Electronic check`), any case. */
export function checkWord(source: Source, expectation: Expectation & { expected: string }): PartScore {
  const name = expectation.name ?? expectation.label;
  const tails = afterLabel(source.text, expectation.label);
  const correct = tails.some((tail) => new RegExp(word(expectation.expected), 'i').test(tail));
  const got = tails[0]?.trim();
  if (correct) return { name, correct, expected: expectation.expected, got: expectation.expected };
  return {
    name,
    correct,
    expected: expectation.expected,
    ...(got ? { got } : {}),
    why:
      got === undefined
        ? `expected ${expectation.what} ${expectation.expected}, found no '${expectation.label}' ${source.where}`
        : `expected ${expectation.what} ${expectation.expected}, found '${got}'`,
  };
}

/** The playbook the thread was told it follows; `undefined` expects none. */
export function checkPlaybook(outcome: CaseOutcome, expected: string | undefined): PartScore {
  const correct = outcome.playbook === expected;
  return {
    name: 'playbook',
    correct,
    expected: expected ?? 'none',
    ...(outcome.playbook ? { got: outcome.playbook } : {}),
    ...(correct
      ? {}
      : { why: `expected playbook ${expected ?? 'none'}, the thread followed ${outcome.playbook ?? 'none'}` }),
  };
}

/** The agent asked a clarifying question before answering. */
export function checkAsked(outcome: CaseOutcome): PartScore {
  const [question] = outcome.questions;
  return {
    name: 'asked',
    correct: question !== undefined,
    expected: 'a clarifying question',
    ...(question === undefined
      ? { why: 'expected a clarifying question before the answer, the agent asked none' }
      : { got: question }),
  };
}

/** The agent said the data cannot answer the request. */
export function checkDeclined(outcome: CaseOutcome): PartScore {
  return {
    name: 'declined',
    correct: outcome.declined,
    expected: 'declined as out of scope',
    ...(outcome.declined
      ? { got: 'declined' }
      : {
          why: `expected the agent to decline (the data cannot answer it), it answered: ${outcome.answer.slice(0, 200)}`,
        }),
  };
}

/** The thread said it answered with the verified query of that name (run_verified_query posts it). */
export function checkVerifiedQuery(outcome: CaseOutcome, name: string): PartScore {
  const said = `Using the verified query *${name}*`;
  const used = /Using the verified query \*([^*]+)\*/.exec(outcome.transcript)?.[1];
  const correct = outcome.transcript.includes(said);
  return {
    name: 'verified_query',
    correct,
    expected: name,
    ...(used ? { got: correct ? name : used } : {}),
    ...(correct
      ? {}
      : {
          why:
            used === undefined
              ? `expected the thread to use the verified query '${name}', it used none`
              : `expected the thread to use the verified query '${name}', it used '${used}'`,
        }),
  };
}
