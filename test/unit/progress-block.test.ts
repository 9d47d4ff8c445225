import { describe, expect, it } from 'vitest';
import { BAR_AFTER_MS, meterOf, progressBar } from '../../adapters/console/progress-bar.js';
import { blockLines } from '../../adapters/console/progress-block.js';
import { formatElapsed } from '../../adapters/console/progress-format.js';
import { ProgressLog } from '../../adapters/console/progress-log.js';
import type { ProgressTask, TurnProgress } from '../../src/ports/chat.js';

const NOW = 1_000_000;

function turn(tasks: ProgressTask[], plan: TurnProgress['plan'] = []): TurnProgress {
  return { turnId: 't1', userId: 'local', startedAt: NOW - 60_000, state: 'running', plan, tasks };
}

const done = (index: number): ProgressTask => ({
  id: `c${index}`,
  title: `Query table_${index}`,
  status: 'complete',
  output: '10 rows',
  startedAt: NOW - 50_000 + index * 1000,
  endedAt: NOW - 50_000 + index * 1000 + 200,
});

describe('the progress block', () => {
  it('folds the earliest finished steps into one line when the block would not fit on the screen', () => {
    const tasks = [...Array.from({ length: 30 }, (_, index) => done(index)), { ...done(30), status: 'error' as const }];
    const running: ProgressTask = { id: 'last', title: 'Run Python', status: 'in_progress', startedAt: NOW - 1000 };
    const lines = blockLines(turn([...tasks, running]), { now: NOW, columns: 80, maxLines: 10 });
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe('  ✓ 23 earlier steps');
    expect(lines.at(-2)).toMatch(/^ {2}✗ Query table_30 +0\.2s {2}10 rows$/);
    expect(lines.at(-1)).toMatch(/^ {2}. Run Python +1\.0s$/);
  });

  it('cuts lines to the width of the terminal, so a redraw never wraps', () => {
    const long: ProgressTask = { ...done(1), output: `ValueError: ${'x'.repeat(200)}`, status: 'error' };
    const lines = blockLines(turn([long], [{ title: 'A step with a long title '.repeat(8), status: 'in_progress' }]), {
      now: NOW,
      columns: 50,
      maxLines: 20,
    });
    expect(lines.every((line) => Array.from(line).length <= 49)).toBe(true);
    expect(lines[1]).toMatch(/^ {2}▸ 1\. A step with a long title.*…$/);
  });

  it('leaves out what a frozen block above already shows as finished, and an unmoved plan', () => {
    const plan: TurnProgress['plan'] = [
      { title: 'Count', status: 'complete' },
      { title: 'Chart', status: 'complete' },
    ];
    const lines = blockLines(turn([done(1), done(2)], plan), {
      now: NOW,
      columns: 80,
      maxLines: 20,
      shownAbove: { taskIds: new Set(['c1']), plan: ['complete', 'in_progress'] },
    });
    expect(lines).toEqual([expect.stringMatching(/^ {2}✓ Query table_2 +0\.2s {2}10 rows$/)]);
  });
});

describe('the progress meter', () => {
  it('appears for more than 100,000 rows (received or expected) and after 3 s of running', () => {
    const task = (rows?: ProgressTask['rows'], runningMs = 1000): ProgressTask => ({
      id: 'x',
      title: 'Load events',
      status: 'in_progress',
      startedAt: NOW - runningMs,
      ...(rows ? { rows } : {}),
    });
    expect(meterOf(task({ received: 100_000 }), NOW)).toBeUndefined();
    expect(meterOf(task({ received: 100_001 }), NOW)).toEqual({ elapsedMs: 1000, received: 100_001 });
    expect(meterOf(task({ received: 10, expected: 2_000_000 }), NOW)).toMatchObject({ expected: 2_000_000 });
    expect(meterOf(task(undefined, BAR_AFTER_MS), NOW)).toBeUndefined();
    expect(meterOf(task(undefined, BAR_AFTER_MS + 1), NOW)).toEqual({ elapsedMs: BAR_AFTER_MS + 1 });
    expect(meterOf({ ...task({ received: 500_000 }), status: 'complete' }, NOW)).toBeUndefined();
  });

  it('draws a filled bar for a known total and a sweeping block without one', () => {
    expect(progressBar({ elapsedMs: 61_000, received: 250_000, expected: 1_000_000 }, 10)).toBe(
      '[██░░░░░░░░] 250,000 of 1,000,000 rows (25%), 1m01s',
    );
    expect(progressBar({ elapsedMs: 0 }, 10)).toBe('[████░░░░░░] running, 0.0s');
    expect(progressBar({ elapsedMs: 300 }, 10)).toBe('[░░░████░░░] running, 0.3s');
    expect(progressBar({ elapsedMs: 900 }, 10)).toBe('[░░░████░░░] running, 0.9s');
    expect(formatElapsed(3 * 3_600_000 + 5 * 60_000)).toBe('3h05m');
  });
});

describe('the plain progress log', () => {
  it('says where a failed turn stopped in its plan, once', () => {
    const log = new ProgressLog();
    const plan: TurnProgress['plan'] = [
      { title: 'Count', status: 'complete' },
      { title: 'Chart', status: 'error' },
    ];
    const failed = { ...turn([], plan), state: 'failed' as const };
    expect(log.lines(failed, NOW)).toEqual(['Plan:\n  1. Count\n  2. Chart', '✗ Stopped at step 2 of 2: Chart']);
    expect(log.lines(failed, NOW + 1000)).toEqual([]);
  });

  it('keeps two turns apart: lines of one are not printed again when the other posts', () => {
    const log = new ProgressLog();
    const running: ProgressTask = { id: 'c1', title: 'Run Python', status: 'in_progress', startedAt: NOW };
    const first = turn([running]);
    const second = { ...turn([{ ...running, title: 'Load events' }]), turnId: 't2' };
    expect(log.lines(first, NOW)).toEqual(['… Run Python']);
    expect(log.lines(second, NOW)).toEqual(['… Load events']);
    expect(log.lines(first, NOW + 100)).toEqual([]);
    const ended = {
      ...first,
      state: 'done' as const,
      tasks: [{ ...running, status: 'complete' as const, endedAt: NOW + 200 }],
    };
    expect(log.lines(ended, NOW + 200)).toEqual(['✓ Run Python (0.2s)']);
  });
});
