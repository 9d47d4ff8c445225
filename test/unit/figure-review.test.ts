/**
 * The check on what the agent hands in: the first ungrounded figure sends the text back with a
 * note naming it, the next hand-in is posted with what is still ungrounded marked; numbers people
 * wrote are not figures to check; `grounding=off` posts as written. And how marks and links look.
 */
import { describe, expect, it } from 'vitest';
import { emptyConversation } from '../../src/agent/conversation.js';
import { figureReview } from '../../src/agent/grounding/figure-review.js';
import { groundFigures } from '../../src/agent/grounding/ground-figures.js';
import {
  keepEvidence,
  keepGiven,
  keepParameters,
  MAX_THREAD_NUMBERS,
} from '../../src/agent/grounding/thread-evidence.js';
import type { LogEvent } from '../../src/agent/log-event.js';
import { annotateFigures } from '../../src/report/annotate-figures.js';

const RATES = `PaymentMethod     customers  churn_rate
Electronic check  1879       0.449175
Mailed check      1304       0.147239
(2 rows)`;

function reviewing(enabled = true) {
  const conversation = emptyConversation();
  keepEvidence(conversation, { id: 'call_1', tool: 'run_sql', text: RATES });
  const logged: LogEvent[] = [];
  const review = figureReview({
    conversation,
    enabled,
    approx: 0.05,
    log: async (event) => {
      logged.push(event);
    },
  });
  return { conversation, logged, review };
}

describe('figureReview', () => {
  it('posts a text whose figures all come from results, unmarked', async () => {
    const { review, logged } = reviewing();
    const verdict = await review('Electronic check churns at 44.9% of 1,879 customers.', 'section');
    expect(verdict).toMatchObject({ kind: 'post', markdown: 'Electronic check churns at 44.9% of 1,879 customers.' });
    expect(verdict.kind === 'post' && verdict.checks.map((check) => [check.text, check.status, check.source])).toEqual([
      ['44.9%', 'grounded', 'call_1'],
      ['1,879', 'grounded', 'call_1'],
    ]);
    expect(logged).toEqual([
      { kind: 'grounding', what: 'section', outcome: 'posted', figures: 2, grounded: 2, ungrounded: [] },
    ]);
  });

  it('sends an ungrounded figure back once with a note, then posts it marked', async () => {
    const { review, logged, conversation } = reviewing();
    const text = 'Electronic check churns at 47.2% of 1,879 customers.';
    const first = await review(text, 'answer');
    expect(first.kind).toBe('redo');
    expect(first.kind === 'redo' && first.note).toContain('- 47.2%, in "…Electronic check churns at 47.2% of 1,879');
    expect(first.kind === 'redo' && first.note).toContain('give the answer again');
    expect(conversation.figuresNoted).toBe(true);
    const second = await review(text, 'answer');
    expect(second).toMatchObject({
      kind: 'post',
      markdown: 'Electronic check churns at 47.2%⚠ of 1,879 customers.\n\n⚠ not found in any result: 47.2%',
    });
    expect(conversation.figuresNoted).toBeUndefined();
    expect(logged.map((event) => event.kind === 'grounding' && [event.outcome, event.ungrounded])).toEqual([
      ['noted', ['47.2%']],
      ['posted', ['47.2%']],
    ]);
    // The next text with a wrong figure gets its own note.
    expect((await review('Mailed check: 15.9%.', 'section')).kind).toBe('redo');
  });

  it('asks for a point as the decimal mark and does not match a comma decimal', async () => {
    const { review } = reviewing();
    const first = await review('Electronic check churns at 44,9%.', 'section');
    expect(first.kind === 'redo' && first.note).toContain('44,9% (a comma decimal mark: write it with a point)');
    expect(first.kind === 'redo' && first.note).toContain('call draft_section again');
    const second = await review('Electronic check churns at 44,9%.', 'section');
    expect(second.kind === 'post' && second.markdown).toBe(
      'Electronic check churns at 44,9%⚠.\n\n⚠ ambiguous decimal mark: 44,9%',
    );
  });

  it('does not check numbers the user wrote', async () => {
    const { review, conversation } = reviewing();
    keepGiven(conversation, 'Which payment methods churn above 30%? Use the last 18 months.');
    const verdict = await review(
      'Above the 30% you asked about, over the 18 months: electronic check, 44.9%.',
      'answer',
    );
    expect(verdict.kind === 'post' && verdict.checks.map((check) => check.text)).toEqual(['44.9%']);
  });

  it('takes a number of the code that ran as a parameter when no result holds it', async () => {
    const { review, conversation } = reviewing();
    keepParameters(conversation, '{"code":"pd.cut(customers.tenure, bins=12)"}');
    const verdict = await review('Tenure in 12 bands; 1,879 paid by electronic check.', 'section');
    expect(verdict.kind === 'post' && verdict.checks.map((check) => [check.text, check.status])).toEqual([
      ['1,879', 'grounded'],
    ]);
    // A parameter never hides a result: 1879 in the code still leaves 1,879 grounded in the result.
    keepParameters(conversation, '{"code":"df.head(1879)"}');
    const again = await review('1,879 paid by electronic check.', 'section');
    expect(again.kind === 'post' && again.checks.map((check) => check.status)).toEqual(['grounded']);
  });

  it('posts as written when the thread turned the check off', async () => {
    const { review, logged } = reviewing(false);
    expect(await review('Churn is 47.2%.', 'answer')).toEqual({
      kind: 'post',
      markdown: 'Churn is 47.2%.',
      checks: [],
    });
    expect(logged).toEqual([]);
  });
});

describe('keepEvidence', () => {
  it('keeps the numbers of each result and drops the oldest beyond the cap', () => {
    const conversation = emptyConversation();
    keepEvidence(conversation, { id: 'a', tool: 'run_sql', text: 'no numbers here' });
    expect(conversation.evidence).toBeUndefined();
    const many = Array.from({ length: 3000 }, (_, index) => String(index + 0.5)).join(' ');
    for (let index = 0; index < 20; index += 1)
      keepEvidence(conversation, { id: `c${index}`, tool: 'run_python', text: many });
    const kept = conversation.evidence ?? [];
    expect(kept.reduce((total, source) => total + source.numbers.length, 0)).toBeLessThanOrEqual(MAX_THREAD_NUMBERS);
    expect(kept.at(-1)?.id).toBe('c19');
    expect(kept[0]?.id).not.toBe('c0');
  });
});

describe('annotateFigures', () => {
  const sources = [{ id: 'call_1', tool: 'run_sql', numbers: [0.449175, 1879] }];

  it('links grounded figures where asked and marks the rest', () => {
    const text = '| Method | Rate |\n|---|---|\n| Electronic check | 44.9% |\n| Mailed check | 14.2% |';
    const checks = groundFigures(text, sources);
    expect(annotateFigures(text, checks, { link: (source) => `#${source}` })).toBe(
      '| Method | Rate |\n|---|---|\n| Electronic check | [44.9%](#call_1) |\n| Mailed check | 14.2%⚠ |\n\n⚠ not found in any result: 14.2%',
    );
  });

  it('leaves figures inside a link alone and ignores checks of another text', () => {
    const text = 'See [44.9% of them](https://example.com) and 1,879.';
    const checks = groundFigures(text, sources);
    expect(annotateFigures(text, checks, { link: () => '#cell' })).toBe(
      'See [44.9% of them](https://example.com) and [1,879](#cell).',
    );
    expect(annotateFigures('Something else entirely, 12.5.', checks)).toBe('Something else entirely, 12.5.');
  });
});
