/**
 * Number grounding: each figure a text states is matched against the numbers the thread's tools
 * returned. A figure is grounded when some result rounds to it at the precision it was written
 * (0.4493 as 44.9%, 1879 as 1,879, 1.27e-105 as 1.3e-105), or within the approximate tolerance when
 * the text says "about"; derived when the sentence says it is a difference, sum, ratio, share or change of
 * two grounded figures of the same paragraph; otherwise ungrounded. A comma decimal mark is refused
 * as ambiguous.
 */
import type { FigureCheck } from '../../report/report.js';
import { findFigures, isAmong, type StatedFigure } from './stated-figures.js';

export type { FigureCheck };

/** The numbers one tool result held. */
export interface EvidenceSource {
  /** The tool call (or a person's cell) whose result it was. */
  id: string;
  tool: string;
  numbers: number[];
}

export interface GroundOptions {
  /** Numbers the user wrote: not figures to check. */
  given?: number[];
  /** Numbers in the code and SQL that ran (`bins=12`, `LIMIT 20`): a figure no result holds but that states one is a parameter, not checked. */
  parameters?: number[];
  /** Relative tolerance for a figure the text calls approximate. Default 0.05. */
  approx?: number;
}

/** The default relative tolerance for approximate figures ("about 7,000"). */
export const DEFAULT_APPROX = 0.05;

export function groundFigures(markdown: string, sources: EvidenceSource[], options: GroundOptions = {}): FigureCheck[] {
  const index = new ResultIndex(sources);
  const approx = options.approx ?? DEFAULT_APPROX;
  const figures = findFigures(markdown, options.given ? { given: options.given } : {});
  const checks = figures.map((figure): FigureCheck & { figure: StatedFigure } => {
    const base = { text: figure.text, start: figure.start, end: figure.end, figure };
    if (figure.ambiguous) return { ...base, status: 'ambiguous' };
    const source = index.find(figure, approx);
    return source === undefined ? { ...base, status: 'ungrounded' } : { ...base, status: 'grounded', source };
  });
  const parameters = options.parameters ?? [];
  const stated = checks.filter((check) => check.status !== 'ungrounded' || !isAmong(check.figure, parameters));
  for (const check of stated) {
    if (check.status !== 'ungrounded') continue;
    const operands = stated.filter(
      (other) => other.status === 'grounded' && samePart(markdown, '\n\n', other.start, check.start),
    );
    if (
      isDerived(
        check.figure,
        sentenceAround(markdown, check.start, check.end),
        operands.map((other) => other.figure),
      )
    ) {
      check.status = 'derived';
    }
  }
  return stated.map(({ figure: _, ...check }) => check);
}

/** Every result number, sorted by magnitude, with the latest result that held it. */
class ResultIndex {
  private readonly values: Float64Array;
  private readonly owners: string[];

  constructor(sources: EvidenceSource[]) {
    const pairs: Array<[number, number]> = [];
    sources.forEach((source, order) => {
      for (const number of source.numbers) pairs.push([Math.abs(number), order]);
    });
    pairs.sort((left, right) => left[0] - right[0] || right[1] - left[1]);
    this.values = Float64Array.from(pairs, ([value]) => value);
    this.owners = pairs.map(([, order]) => sources[order]?.id ?? '');
  }

  /** The result holding a number the figure rounds from, or undefined. */
  find(figure: StatedFigure, approx: number): string | undefined {
    for (const [value, tolerance] of readingsOf(figure)) {
      const slack = Math.max(tolerance, figure.approx ? approx * value : 0) * (1 + 1e-9) + 1e-12 * value;
      const found = this.within(value - slack, value + slack);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  private within(low: number, high: number): string | undefined {
    let left = 0;
    let right = this.values.length;
    while (left < right) {
      const middle = (left + right) >> 1;
      if ((this.values[middle] ?? 0) < low) left = middle + 1;
      else right = middle;
    }
    return left < this.values.length && (this.values[left] ?? Number.NaN) <= high ? this.owners[left] : undefined;
  }
}

/** The values a result may hold for a figure: 44.9% is 44.9 or 0.449; a fraction 0.449 may be printed as 44.9. */
function readingsOf(figure: StatedFigure): Array<[number, number]> {
  const value = Math.abs(figure.value);
  const readings: Array<[number, number]> = [[value, figure.tolerance]];
  if (figure.percent) readings.push([value / 100, figure.tolerance / 100]);
  else if (value <= 1 && figure.tolerance < 0.5) readings.push([value * 100, figure.tolerance * 100]);
  return readings;
}

// What the sentence must say for a figure to count as derived from two others.
const DIFFERENCE =
  /\b(?:differences?|differs?|gap|higher|lower|more|less|fewer|greater|smaller|larger|points?|pp|p\.p\.|above|below|ahead|behind|exceeds?|minus|margin|spread)\b/i;
const CHANGE =
  /\b(?:increase[sd]?|decrease[sd]?|drop(?:ped|s)?|r[io]se|rises|fell|falls?|grew|grows?|growth|decline[sd]?|change[sd]?|up|down)\b/i;
const RATIO = /\b(?:times|ratio|fold|twice|as likely|odds)\b|×/i;
const SHARE = /\b(?:share|of|out of|proportion|fraction|percent of)\b/i;
const SUM = /\b(?:total|together|combined|sum|in all|altogether|add up|adds up)\b/i;

type Interval = [number, number];

function isDerived(figure: StatedFigure, sentence: string, operands: StatedFigure[]): boolean {
  const target: Interval = [Math.abs(figure.value) - figure.tolerance, Math.abs(figure.value) + figure.tolerance];
  const fits = (interval: Interval | undefined) =>
    interval !== undefined && interval[0] <= target[1] * (1 + 1e-9) && target[0] <= interval[1] * (1 + 1e-9);
  const asPercent = (interval: Interval): Interval => [interval[0] * 100, interval[1] * 100];
  const difference = DIFFERENCE.test(sentence) || CHANGE.test(sentence);
  const change = CHANGE.test(sentence) || DIFFERENCE.test(sentence);
  const ratio = figure.times || RATIO.test(sentence);
  const share = SHARE.test(sentence);
  const sum = SUM.test(sentence);
  for (const a of operands) {
    for (const b of operands) {
      if (a === b) continue;
      const left = intervalOf(a);
      const right = intervalOf(b);
      if (sum && a.percent === b.percent && fits([left[0] + right[0], left[1] + right[1]])) return true;
      if (difference && a.percent === b.percent && a.value >= b.value) {
        const gap = minus(left, right);
        if (fits(gap) || (figure.percent && !a.percent && fits(asPercent(gap)))) return true;
      }
      const quotient = divide(left, right);
      if (!quotient) continue;
      if (change && figure.percent && a.percent === b.percent && fits(asPercent(minus(quotient, [1, 1])))) return true;
      if (ratio && a.percent === b.percent && fits(quotient)) return true;
      if (share && !a.percent && !b.percent && Math.abs(a.value) <= Math.abs(b.value)) {
        if (fits(figure.percent ? asPercent(quotient) : quotient)) return true;
      }
    }
  }
  return false;
}

function intervalOf(figure: StatedFigure): Interval {
  const value = Math.abs(figure.value);
  return [value - figure.tolerance, value + figure.tolerance];
}

function minus(left: Interval, right: Interval): Interval {
  const low = left[0] - right[1];
  const high = left[1] - right[0];
  return low < 0 && high > 0
    ? [0, Math.max(-low, high)]
    : [Math.min(Math.abs(low), Math.abs(high)), Math.max(Math.abs(low), Math.abs(high))];
}

function divide(left: Interval, right: Interval): Interval | undefined {
  if (right[0] <= 0) return undefined;
  return [left[0] / right[1], left[1] / right[0]];
}

/** The sentence a figure stands in; for a table row, the row with the table's header. */
function sentenceAround(text: string, start: number, end: number): string {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const lineEnd = text.indexOf('\n', end);
  const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
  if (line.trimStart().startsWith('|')) {
    const lines = text.slice(0, lineStart).split('\n');
    const header = lines.findLast(
      (candidate, index) => candidate.trimStart().startsWith('|') && !lines[index - 1]?.trimStart().startsWith('|'),
    );
    return `${header ?? ''}\n${line}`;
  }
  const before = text.slice(lineStart, start);
  const from = Math.max(before.lastIndexOf('. '), before.lastIndexOf('! '), before.lastIndexOf('? ')) + 1;
  const rest = text.slice(end, lineEnd === -1 ? text.length : lineEnd);
  const stop = rest.search(/[.!?](?:\s|$)/);
  return text.slice(lineStart + from, stop === -1 ? lineStart + line.length : end + stop);
}

/** Whether two positions fall in the same part of the text (paragraph), parts separated by `separator`. */
function samePart(text: string, separator: string, first: number, second: number): boolean {
  const [low, high] = first < second ? [first, second] : [second, first];
  return !text.slice(low, high).includes(separator);
}
