/**
 * The figures a text states: the numbers in an answer or a section that a reader takes as results
 * (44.9%, 1,879, 1.3e-105, the ends of 31.5-34.6%, a Markdown table's cells), each with the value
 * and the precision it was written at. What is not a result is left out: years, dates and times,
 * list markers and headings, step, section and figure numbers, identifiers (Q1, s1, col_3),
 * ordinals, whole numbers below 10 that count things in prose, bounds (p < 0.001, more than 40%),
 * code, and numbers the user wrote in the request (unless they claimed them as facts: `claimedFigures`).
 */

export interface StatedFigure {
  /** As written, with its sign and unit: `-0.23`, `44.9%`, `1,879`, `1.3e-105`, `$1.2M`'s `1.2M`. */
  text: string;
  start: number;
  end: number;
  /** In the written unit, scaled by a k/M/bn suffix: `44.9%` is 44.9, `1.2M` is 1,200,000. */
  value: number;
  /** Half a unit in the last written digit: how far a result may be and still round to it. */
  tolerance: number;
  /** Written as a percentage or in (percentage) points. */
  percent: boolean;
  /** Qualified as approximate (about, roughly, ~). */
  approx: boolean;
  /** A ratio written with x or ×. */
  times: boolean;
  /** A comma decimal mark (44,9%): cannot be read safely, so it is never matched. */
  ambiguous: boolean;
}

export interface FindOptions {
  /** Numbers the user wrote (the request, feedback): stating them back is not a result. */
  given?: number[];
}

// Runs of digits and separators that start and end with a digit; the sign is decided from what precedes it.
const TOKEN = /[-−]?\d(?:[\d,.\u00a0\u202f\u2009]*\d)?/g;
const EXPONENT = /^(?:[eE][-+−]?\d+|\s?[×x·]\s?10(?:\^[-+−]?\d+|[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))/;
const UNIT =
  /^(?:\s?(?:%|percent\b|per cent\b|pct\b|pp\b|p\.p\.|percentage points?\b|points?\b|million\b|billion\b|thousand\b|bn\b)|[kKMB]\b|x\b|\s?×)/;
const SCALES: Record<string, number> = {
  k: 1e3,
  K: 1e3,
  thousand: 1e3,
  M: 1e6,
  million: 1e6,
  B: 1e9,
  bn: 1e9,
  billion: 1e9,
};
const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** Words that make the number after them a label, not a result: `step 3`, `Figure 2`, `top 10`. */
const LABEL_BEFORE =
  /(?:\b(?:steps?|sections?|figures?|fig\.|tables?|charts?|cells?|versions?|pages?|lines?|items?|questions?|cases?|plan|stages?|parts?|appendix|chapters?|rounds?|attempts?|top|bottom|no\.)|#)\s*$/i;
/** Bounds state a limit, not a result: `p < 0.001`, `more than 40%`, `at least 12`. */
const BOUND_BEFORE =
  /(?:[<>≤≥]=?|\b(?:less|more|greater|fewer)\s+than|\bat\s+(?:least|most)|\bup\s+to|\bunder|\bover|\bbelow|\babove|\bexceed(?:s|ing)?|\bwithin)\s*$/i;
const APPROX_BEFORE =
  /(?:[~≈]|\b(?:about|around|roughly|approximately|approx\.?|nearly|almost|close\s+to|some|circa|ca\.|just\s+about))\s*$/i;
/** `95% CI`: the level of an interval, not a result. */
const CONFIDENCE_LEVEL = /^\s*(?:CI|C\.I\.|confidence|credible|prediction)\b/i;
/** Masked before reading: code, links' targets, URLs, dates and times. */
const MASKED = [
  /```[\s\S]*?(?:```|$)/g,
  /`[^`\n]*`/g,
  /\]\([^)\s]*\)/g,
  /\bhttps?:\/\/\S+/g,
  /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?/g,
  /\b\d{1,2}:\d{2}(?::\d{2})?\b/g,
];

export function findFigures(markdown: string, options: FindOptions = {}): StatedFigure[] {
  let text = markdown;
  for (const pattern of MASKED) text = text.replace(pattern, (match) => ' '.repeat(match.length));
  const figures: StatedFigure[] = [];
  let consumed = 0; // an exponent's `10^-105` is part of the figure before it
  for (const match of text.matchAll(TOKEN)) {
    if (match.index < consumed) continue;
    let start = match.index;
    let token = match[0];
    // A dash between two numbers is a range (31.5-34.6), not a sign.
    if (/^[-−]/.test(token) && /[\d%)]/.test(text[start - 1] ?? '')) {
      start += 1;
      token = token.slice(1);
    }
    for (const part of splitList(token, start)) {
      const figure = readFigure(text, markdown, part.token, part.start);
      if (figure) {
        figures.push(figure);
        consumed = figure.end;
      }
    }
  }
  shareRangeUnits(text, figures);
  return figures.filter((figure) => !isAmong(figure, options.given ?? []));
}

/** `is 31.4%`, `was about 1,200`, `= 0.27`: a number said to be what something is, not a parameter of the request. */
const CLAIM_BEFORE =
  /(?:\b(?:is|was|are|were|equals?|stands\s+at)|=)\s*(?:(?:about|around|roughly|approximately|nearly|almost|exactly|only|just)\s+)?[~≈]?\s*$/i;

/**
 * The figures a person's text states as facts (`my manager says the churn rate is 31.4%`), which an answer that
 * affirms them must back with a result; not the ones that shape the request (`at tenure 24`, `above 30%`).
 */
export function claimedFigures(text: string): StatedFigure[] {
  return findFigures(text).filter((figure) =>
    CLAIM_BEFORE.test(text.slice(Math.max(0, figure.start - 40), figure.start)),
  );
}

/** `0.31,0.35` is two numbers; `1,879` and `44,9` are one (the second is ambiguous). */
function splitList(token: string, start: number): Array<{ token: string; start: number }> {
  const parts = token.split(',');
  if (parts.length < 2 || !parts.every((part) => /^[-−]?\d+\.\d+$/.test(part))) return [{ token, start }];
  let offset = start;
  return parts.map((part) => {
    const piece = { token: part, start: offset };
    offset += part.length + 1;
    return piece;
  });
}

type Reading = { value: number; decimals: number; ambiguous: boolean };

/** The number a token writes, or undefined when it is no number (a version, an IP address). */
function readToken(token: string): Reading | undefined {
  const negative = /^[-−]/.test(token);
  const digits = negative ? token.slice(1) : token;
  const sign = negative ? -1 : 1;
  const spaced = digits.replace(/[\u00a0\u202f\u2009]/g, ' ');
  let plain: string | undefined;
  if (/^\d+(?:\.\d+)?$/.test(spaced)) plain = spaced;
  else if (/^[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$/.test(spaced)) plain = spaced.replaceAll(',', '');
  else if (/^[1-9]\d{0,2}(?: \d{3})+(?:\.\d+)?$/.test(spaced)) plain = spaced.replaceAll(' ', '');
  if (plain !== undefined) {
    return { value: sign * Number(plain), decimals: plain.split('.')[1]?.length ?? 0, ambiguous: false };
  }
  // A comma decimal mark (44,9  0,449  1.234,5  1.879.000): a reader cannot tell what it means.
  if (/^\d+(?:[.,]\d+)+$/.test(spaced) && spaced.includes(','))
    return { value: Number.NaN, decimals: 0, ambiguous: true };
  if (/^\d{1,3}(?:\.\d{3}){2,}$/.test(spaced)) return { value: Number.NaN, decimals: 0, ambiguous: true };
  return undefined;
}

function readFigure(text: string, original: string, token: string, start: number): StatedFigure | undefined {
  const reading = readToken(token);
  if (!reading) return undefined;
  const before = text.slice(Math.max(0, start - 40), start);
  const previous = before.at(-1) ?? '';
  // Glued to a name, a date or a path (Q1, s1, col_3, 1/15); an underscore after a space opens _italics_.
  if (/[\p{L}\d/:.#^]/u.test(previous) || (previous === '_' && /[\p{L}\d]/u.test(before.at(-2) ?? ''))) {
    return undefined;
  }
  let end = start + token.length;
  const exponent = EXPONENT.exec(text.slice(end));
  let power = 0;
  if (exponent) {
    power = readPower(exponent[0]);
    end += exponent[0].length;
  }
  const unitMatch = exponent ? undefined : UNIT.exec(text.slice(end));
  const unit = unitMatch?.[0].trim() ?? '';
  end += unitMatch?.[0].length ?? 0;
  const after = text.slice(end, end + 2);
  if (/^[\p{L}\d]|^_[\p{L}\d]|^-\p{L}|^:\d|^\/\d/u.test(after)) return undefined; // 1st, 3D, x_1, 12-month, 3:1, 1/4
  if (CONFIDENCE_LEVEL.test(text.slice(end, end + 16)) && unitMatch?.[0].trim() === '%') return undefined; // 95% CI
  if (isListMarker(text, start, token, after)) return undefined;
  if (LABEL_BEFORE.test(before) || BOUND_BEFORE.test(before)) return undefined;
  const percent = /%|percent|per cent|pct|pp|p\.p\.|points?/.test(unit);
  const scale = SCALES[unit] ?? 1;
  const plainWhole = reading.decimals === 0 && unit === '' && !exponent;
  if (plainWhole && /^\d{4}$/.test(token) && reading.value >= 1900 && reading.value <= 2100) return undefined; // a year
  if (plainWhole && Math.abs(reading.value) < 10) return undefined; // counts things in prose: 3 groups
  const magnitude = 10 ** power * scale;
  return {
    text: original.slice(start, end).trim(),
    start,
    end: start + original.slice(start, end).trimEnd().length,
    value: reading.value * magnitude,
    tolerance: tolerance(reading, token) * magnitude,
    percent,
    approx: APPROX_BEFORE.test(before),
    times: unit === 'x' || unit === '×',
    ambiguous: reading.ambiguous,
  };
}

/** Half a unit in the last written digit; whole thousands with trailing zeros keep two significant digits. */
function tolerance(reading: Reading, token: string): number {
  if (reading.decimals > 0) return 0.5 * 10 ** -reading.decimals;
  const digits = token.replace(/\D/g, '');
  const zeros = /0*$/.exec(digits)?.[0].length ?? 0;
  if (Math.abs(reading.value) < 1000 || zeros === 0) return 0.5;
  return 0.5 * 10 ** Math.min(zeros, digits.length - 2);
}

function readPower(exponent: string): number {
  const caret = /\^([-+−]?\d+)$/.exec(exponent) ?? /[eE]([-+−]?\d+)$/.exec(exponent);
  if (caret?.[1]) return Number(caret[1].replace('−', '-'));
  const superscript = /([⁻⁺]?)([⁰¹²³⁴⁵⁶⁷⁸⁹]+)$/.exec(exponent);
  const digits = [...(superscript?.[2] ?? '')].map((char) => SUPERSCRIPT.indexOf(char)).join('');
  return (superscript?.[1] === '⁻' ? -1 : 1) * Number(digits || 0);
}

/** `1.` or `2)` opening a line (after a quote mark or a heading's #): an ordered list or a heading's number. */
function isListMarker(text: string, start: number, token: string, after: string): boolean {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  if (!/^[\s>#*-]*$/.test(text.slice(lineStart, start))) return false;
  return /^\d+$/.test(token) && /^[.)](?:\s|$)/.test(after);
}

/** In `31.5-34.6%` or `1.2 to 1.5M` the unit written after the second end is the first end's too. */
function shareRangeUnits(text: string, figures: StatedFigure[]): void {
  for (let index = 0; index + 1 < figures.length; index += 1) {
    const left = figures[index] as StatedFigure;
    const right = figures[index + 1] as StatedFigure;
    if (!/^\s*(?:[-–—]|to|and)\s*$/.test(text.slice(left.end, right.start))) continue;
    if (right.percent && !left.percent) left.percent = true;
    const scale = SCALES[/(?:[kKMB]|thousand|million|billion|bn)$/.exec(right.text)?.[0] ?? ''];
    if (scale && /^[-−]?[\d.,]+$/.test(left.text)) {
      left.value *= scale;
      left.tolerance *= scale;
    }
  }
}

/** The figure states one of these numbers exactly (its sign aside). */
export function isAmong(figure: StatedFigure, numbers: number[]): boolean {
  const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));
  return numbers.some((number) => same(Math.abs(number), Math.abs(figure.value)));
}
