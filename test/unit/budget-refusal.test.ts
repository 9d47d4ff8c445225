import { describe, expect, it } from 'vitest';
import { budgetRefusal } from '../../src/ports/budget.js';

const MIDNIGHT = Date.UTC(2026, 2, 15);
const MINUTE_MS = 60_000;

describe('budgetRefusal', () => {
  it('names the model tokens used of the limit, the reset in UTC and how long until it', () => {
    const text = budgetRefusal(
      { ok: false, resource: 'model tokens', used: 1_600, limit: 1_000, resetsAt: MIDNIGHT },
      MIDNIGHT - 150 * MINUTE_MS,
    );
    expect(text).toBe(
      'Your daily budget is used up: 1,600 of your 1,000 model tokens for today. It resets at 2026-03-15 00:00 UTC ' +
        '(in 2 h 30 min). This message was not run: send it again after the reset, or ask an operator for a larger budget.',
    );
  });

  it('names kernel minutes, a small limit without rounding it to nothing', () => {
    const text = budgetRefusal(
      { ok: false, resource: 'kernel minutes', used: 0.00168, limit: 0.0001, resetsAt: MIDNIGHT },
      MIDNIGHT - 5 * MINUTE_MS,
    );
    expect(text).toContain('used up: 0.0017 of your 0.0001 kernel minutes for today.');
    expect(text).toContain('(in 5 min)');
    const large = budgetRefusal(
      { ok: false, resource: 'kernel minutes', used: 61.4, limit: 60, resetsAt: MIDNIGHT },
      MIDNIGHT - 5 * MINUTE_MS,
    );
    expect(large).toContain('used up: 61 of your 60 kernel minutes for today.');
  });

  it.each([
    [3 * 60 * MINUTE_MS - 30_000, '(in 3 h)'],
    [60 * MINUTE_MS - 30_000, '(in 1 h)'],
    [61 * MINUTE_MS, '(in 1 h 1 min)'],
    [30_000, '(in 1 min)'],
    [24 * 60 * MINUTE_MS, '(in 24 h)'],
  ])('rounds %s ms left up to whole minutes: %s', (leftMs, said) => {
    const text = budgetRefusal(
      { ok: false, resource: 'model tokens', used: 10, limit: 10, resetsAt: MIDNIGHT },
      MIDNIGHT - leftMs,
    );
    expect(text).toContain(said);
  });
});
