import { describe, expect, it } from 'vitest';
import {
  describeAsPublished,
  extractFormat,
  formatAsPublished,
  isEqualAsPublished,
  publishedAccuracy,
  pythonRound4,
  scoreAsPublished,
} from '../../src/eval/dabench-published-score.js';
import { scoreDabench } from '../../src/eval/dabench-score.js';
import type { PublishedScore } from '../../src/eval/eval-case.js';

/** Both verdicts on one question: tally's scorer, and as published. */
function both(response: string, labels: Array<[string, string]>) {
  return {
    tally: scoreDabench(response, labels).every((part) => part.correct),
    published: scoreAsPublished(response, labels).correct,
  };
}

// Expectations on reading were checked against Python 3.11's re.findall(r"@(\w+)\[(.*?)\]", …).
describe('extractFormat', () => {
  it('keeps the last value of a repeated name', () => {
    expect(extractFormat('@x[1] then @x[2]')).toEqual(new Map([['x', '2']]));
  });

  it('strips nothing', () => {
    expect(extractFormat('@a[ 3.5 ] @b[no ]')).toEqual(
      new Map([
        ['a', ' 3.5 '],
        ['b', 'no '],
      ]),
    );
  });

  it('reads \\w as Python does, Unicode letters and digits included', () => {
    expect(extractFormat('@größe[3] @n²[4] @a-b[1]')).toEqual(
      new Map([
        ['größe', '3'],
        ['n²', '4'],
      ]),
    );
  });

  it('does not read a value across a newline, but does across a carriage return', () => {
    expect(extractFormat('@a[1\n2] @b[3] @c[4\r5]')).toEqual(
      new Map([
        ['b', '3'],
        ['c', '4\r5'],
      ]),
    );
  });

  it('stops a value at its first closing bracket', () => {
    expect(extractFormat('@a[[1]]')).toEqual(new Map([['a', '[1']]));
  });
});

describe('isEqualAsPublished', () => {
  it('is string equality or float() within 1e-6', () => {
    expect(isEqualAsPublished('34.650', '34.65')).toBe(true);
    expect(isEqualAsPublished('3.5000001', '3.5')).toBe(true);
    expect(isEqualAsPublished('3.500001', '3.5')).toBe(false);
    expect(isEqualAsPublished('1e3', '1000')).toBe(true);
    expect(isEqualAsPublished('1_000', '1000')).toBe(true);
  });

  it('refuses what Python cannot read, where Number() would not', () => {
    expect(isEqualAsPublished('0x10', '16')).toBe(false);
    expect(isEqualAsPublished('', '0')).toBe(false);
    expect(isEqualAsPublished(undefined, '0')).toBe(false);
  });

  it('equals nan and inf only as strings', () => {
    expect(isEqualAsPublished('nan', 'nan')).toBe(true);
    expect(isEqualAsPublished('NaN', 'nan')).toBe(false);
    expect(isEqualAsPublished('Infinity', 'inf')).toBe(false);
  });
});

describe('scoreAsPublished beside tally scorer', () => {
  it('counts a name labelled twice once, with its last value (question 734)', () => {
    const labels: Array<[string, string]> = [
      ['correlation_coefficient', '0.38'],
      ['correlation_significance', 'significant'],
      ['correlation_significance', 'non-significant'],
      ['correlation_coefficient', '0.56'],
    ];
    const response = '@correlation_coefficient[0.56] @correlation_significance[non-significant]';
    const published = scoreAsPublished(response, labels);
    expect(published.parts.map((part) => [part.name, part.expected, part.correct])).toEqual([
      ['correlation_coefficient', '0.56', true],
      ['correlation_significance', 'non-significant', true],
    ]);
    expect(both(response, labels)).toEqual({ tally: false, published: true });
  });

  it('reads a grounding mark as part of the value, which float() refuses', () => {
    expect(both('@mean[3.14⚠]', [['mean', '3.14']])).toEqual({ tally: true, published: false });
    expect(scoreAsPublished('@mean[3.14⚠]', [['mean', '3.14']]).parts[0]?.got).toBe('3.14⚠');
  });

  it('does not strip a text answer, though float() strips a number', () => {
    expect(both('@is_normal[ no ]', [['is_normal', 'no']])).toEqual({ tally: true, published: false });
    expect(both('@mean[ 3.5 ]', [['mean', '3.5']])).toEqual({ tally: true, published: true });
  });

  it('ignores answers the label does not name, and keeps the last of a repeated one', () => {
    const response = '@mean[1] @median[9] @mode[1] @mean[3.5]';
    expect(both(response, [['mean', '3.5']])).toEqual({ tally: true, published: true });
    expect(scoreAsPublished(response, [['mean', '3.5']]).parts).toHaveLength(1);
  });

  it('counts a missing answer wrong, and an empty response not at all', () => {
    const labels: Array<[string, string]> = [
      ['mean', '3.5'],
      ['median', '2'],
    ];
    expect(scoreAsPublished('@mean[3.5]', labels)).toEqual({
      answered: true,
      correct: false,
      parts: [
        { name: 'mean', correct: true, expected: '3.5', got: '3.5' },
        { name: 'median', correct: false, expected: '2' },
      ],
    });
    expect(scoreAsPublished('', labels)).toEqual({ answered: false, correct: false, parts: [] });
    expect(scoreAsPublished(' ', labels).answered).toBe(true); // a blank string is truthy in Python
  });

  it('reads numbers with float(), where tally reads them with Number()', () => {
    expect(both('@n[1_000]', [['n', '1000']])).toEqual({ tally: false, published: true });
    expect(both('@n[0x10]', [['n', '16']])).toEqual({ tally: true, published: false });
    expect(both('@r[0.2100001]', [['r', '0.21']])).toEqual({ tally: true, published: true });
    expect(both('@r[0.211]', [['r', '0.21']])).toEqual({ tally: false, published: false });
  });

  it('counts a question whose label names nothing as correct, as all([]) is', () => {
    expect(scoreAsPublished('anything', [])).toEqual({ answered: true, correct: true, parts: [] });
  });
});

describe('publishedAccuracy', () => {
  const part = (correct: boolean) => ({ name: 'x', correct, expected: '1' });
  const score = (...parts: boolean[]): PublishedScore => ({
    answered: true,
    correct: parts.every(Boolean),
    parts: parts.map(part),
  });
  const unanswered: PublishedScore = { answered: false, correct: false, parts: [] };

  it('leaves cases with no response out of every accuracy', () => {
    expect(publishedAccuracy([score(true), score(false, false, true), unanswered])).toEqual({
      cases: 3,
      scored: 2,
      byQuestion: 0.5,
      bySubQuestion: 0.5,
      proportional: 0.6667, // (1 + 1/3) / 2, rounded to 4 places
    });
  });

  it('counts a label with no names correct by question and 0 in proportional', () => {
    const empty: PublishedScore = { answered: true, correct: true, parts: [] };
    expect(publishedAccuracy([empty, score(false)])).toMatchObject({
      byQuestion: 0.5,
      bySubQuestion: 0,
      proportional: 0,
    });
  });

  it('is 0 when nothing was scored', () => {
    expect(publishedAccuracy([unanswered])).toEqual({
      cases: 1,
      scored: 0,
      byQuestion: 0,
      bySubQuestion: 0,
      proportional: 0,
    });
  });

  it("rounds an exact tie to the even digit, as Python's round() does", () => {
    const scores = [score(true), ...Array.from({ length: 31 }, () => score(false))];
    expect(publishedAccuracy(scores).byQuestion).toBe(0.0312); // 1/32 = 0.03125; toFixed(4) gives 0.0313
    expect(formatAsPublished(publishedAccuracy(scores).byQuestion)).toBe('3.12%');
  });
});

describe('pythonRound4', () => {
  it.each([
    [0.03125, 0.0312],
    [0.09375, 0.0938],
    [2 / 3, 0.6667],
    [0.78724, 0.7872],
    [1, 1],
    [0, 0],
  ])('rounds %d to %d', (value, rounded) => {
    expect(pythonRound4(value)).toBe(rounded);
  });
});

describe('describeAsPublished', () => {
  it("prints the script's three accuracies in its order, and the cases left out", () => {
    const accuracy = { cases: 257, scored: 250, byQuestion: 0.7872, bySubQuestion: 0.81, proportional: 0.801 };
    expect(describeAsPublished(accuracy)).toBe(
      'by question 78.72%, proportional 80.10%, by sub-question 81.00% over 250 of 257 cases (7 with no response, left out)',
    );
    expect(describeAsPublished({ ...accuracy, scored: 257 })).not.toContain('left out');
  });
});
