import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/agent/log-event.js';
import { describeSummary } from '../../src/eval/describe-summary.js';
import type { CaseResult } from '../../src/eval/eval-case.js';
import { formatGrounded } from '../../src/eval/format-eval-numbers.js';
import { caseGrounding } from '../../src/eval/run-case.js';
import { runGrounding, summariseEval } from '../../src/eval/summarise-eval.js';

function checked(
  outcome: 'noted' | 'posted',
  figures: number,
  ungrounded: string[],
  what: 'answer' | 'section' = 'answer',
): LogEntry {
  return { kind: 'grounding', what, outcome, figures, grounded: figures - ungrounded.length, ungrounded, at: 0 };
}

function result(id: string, grounding?: CaseResult['grounding']): CaseResult {
  return {
    id,
    suite: 'golden',
    level: 'rates',
    concepts: [],
    status: 'done',
    correct: true,
    parts: [],
    answer: '',
    toolCalls: 1,
    failedToolCalls: 0,
    tokens: { prompt: 10, completion: 1 },
    modelCalls: 2,
    modelMs: 100,
    wallMs: 200,
    ...(grounding ? { grounding } : {}),
    transcript: '',
  };
}

describe('caseGrounding', () => {
  it('sums the posted texts of a thread, answers and sections, and leaves out what went back to the model', () => {
    const log: LogEntry[] = [
      { kind: 'request', text: 'churn by contract?', at: 0 },
      checked('noted', 3, ['0.041']),
      checked('posted', 3, ['0.041']),
      checked('posted', 2, [], 'section'),
      { kind: 'tool_call', callId: 'c1', tool: 'run_sql', arguments: '{}', result: '12', failed: false, at: 0 },
      checked('posted', 4, ['12.5%', '7,001'], 'section'),
    ];
    expect(caseGrounding(log)).toEqual({ figures: 9, grounded: 6, ungrounded: ['0.041', '12.5%', '7,001'] });
  });

  it('counts no figures for a thread that posted none, or was never checked', () => {
    expect(caseGrounding([])).toEqual({ figures: 0, grounded: 0, ungrounded: [] });
    expect(caseGrounding([checked('posted', 0, [])])).toEqual({ figures: 0, grounded: 0, ungrounded: [] });
  });
});

describe('the grounding of a run', () => {
  it('sums the cases and shares grounded by figures', () => {
    const results = [
      result('a', { figures: 30, grounded: 30, ungrounded: [] }),
      result('b', { figures: 10, grounded: 9, ungrounded: ['47.2%'] }),
      result('c', { figures: 0, grounded: 0, ungrounded: [] }),
    ];
    expect(runGrounding(results)).toEqual({ figures: 40, grounded: 39, share: 39 / 40 });
    expect(summariseEval(results, { suite: 'golden', model: 'm', startedAt: '', wallMs: 0 }).grounding).toEqual({
      figures: 40,
      grounded: 39,
      share: 39 / 40,
    });
  });

  it('has a share of 1 when no case posted a figure, and skips results written before grounding was measured', () => {
    expect(runGrounding([])).toEqual({ figures: 0, grounded: 0, share: 1 });
    expect(runGrounding([result('old'), result('new', { figures: 4, grounded: 3, ungrounded: ['1.5'] })])).toEqual({
      figures: 4,
      grounded: 3,
      share: 0.75,
    });
  });

  it('reads as a percentage with its counts', () => {
    expect(formatGrounded({ figures: 40, grounded: 39 })).toBe('97.5% (39 of 40)');
    expect(formatGrounded({ figures: 12_000, grounded: 12_000 })).toBe('100.0% (12,000 of 12,000)');
    expect(formatGrounded({ figures: 0, grounded: 0 })).toBe('no figures');
  });

  it('is printed with the run summary, and left out for a summary written before it', () => {
    const results = [
      result('a', { figures: 30, grounded: 30, ungrounded: [] }),
      result('b', { figures: 10, grounded: 9, ungrounded: ['47.2%'] }),
    ];
    const summary = summariseEval(results, { suite: 'golden', model: 'm', startedAt: '', wallMs: 0 });
    expect(describeSummary(summary).split('\n')).toContain('figures grounded: 97.5% (39 of 40)');
    const { grounding: _, ...older } = summary;
    expect(describeSummary(older)).not.toContain('figures grounded');
  });
});
